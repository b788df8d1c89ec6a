package resources

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/piwasm/pi/core/diag"
)

// Skill sources, recorded in [Skill.Source].
const (
	SourceProject       = "project"        // <cwd>/.pi/...
	SourceProjectAgents = "project-agents" // .agents/skills in cwd or an ancestor
	SourceUser          = "user"           // the agent dir
	SourceUserAgents    = "user-agents"    // ~/.agents/skills
	SourceSettings      = "settings"       // a path listed in settings.json
	SourceCLI           = "cli"            // a command-line flag
)

const (
	maxSkillNameLen        = 64
	maxSkillDescriptionLen = 1024
	skillFileName          = "SKILL.md"
)

// Skill is a SKILL.md file (or a loose markdown file at the top of a skills
// dir) with its frontmatter. FilePath and BaseDir (the directory holding the
// file) are absolute. Source says where it was found (see the Source
// constants).
type Skill struct {
	Name                   string
	Description            string
	FilePath               string
	BaseDir                string
	DisableModelInvocation bool
	Source                 string

	realPath string // FilePath with symlinks resolved, when known
}

// Visible reports whether the model is told about the skill: true unless
// its frontmatter sets `disable-model-invocation: true`. Users can still
// invoke hidden skills with /skill:name.
func (s Skill) Visible() bool { return !s.DisableModelInvocation }

// loadSkillsFromDir loads the skills under dir. A dir holding SKILL.md is one
// skill and is not scanned deeper; otherwise its subdirectories are searched
// recursively, passing over entries whose name starts with a dot,
// node_modules and anything matched by a .gitignore met on the way. With
// looseFiles, `*.md` files directly in dir count as skills too (named after
// the file unless the frontmatter says otherwise).
//
// A dir that does not exist yields nothing and no diagnostic. Skills without
// a description, and files with invalid frontmatter, are left out with a
// warning; names that break the naming rules and overlong descriptions are
// kept with a warning. Names are not de-duplicated here.
func loadSkillsFromDir(dir, source string, looseFiles bool) ([]Skill, []diag.Diagnostic) {
	w := skillWalker{source: source, visited: map[string]bool{}}
	abs, err := filepath.Abs(dir)
	if err != nil {
		w.diags.add(KindWarning, dir, "cannot resolve skills directory: %v", err)
		return nil, w.diags
	}
	if !isDir(abs) {
		return nil, nil
	}
	w.walk(abs, realPath(abs), "", &Gitignore{}, looseFiles)
	return w.out, w.diags
}

// LoadSkillFile loads one skill file. The name defaults to the parent
// directory's name for SKILL.md and to the file name without `.md`
// otherwise. ok is false when the skill was left out; diagnostics say why.
func LoadSkillFile(path, source string) (skill Skill, diags []diag.Diagnostic, ok bool) {
	var ds diagnostics
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	skill, ok = loadSkillFile(abs, source, &ds)
	return skill, ds, ok
}

type skillWalker struct {
	source  string
	visited map[string]bool
	out     []Skill
	diags   diagnostics
	dirs    int // directories scanned so far, bounded by maxSkillDirs
}

// maxSkillDirs bounds one skill scan: a skill path on /proc (whose
// per-process root links lead back to "/") or another huge tree must not
// keep pi busy for minutes.
const maxSkillDirs = 5000

// walk scans dir, whose path with symlinks resolved is real; rel is dir
// relative to the root of the scan, slash-separated.
func (w *skillWalker) walk(dir, real, rel string, ign *Gitignore, loose bool) {
	if w.visited[real] {
		return
	}
	w.visited[real] = true
	if w.dirs++; w.dirs == maxSkillDirs {
		w.diags.add(KindWarning, dir, "stopped scanning for skills after %d directories; point the skill path at a smaller directory", maxSkillDirs)
	}
	if w.dirs >= maxSkillDirs {
		return
	}

	if p := filepath.Join(dir, skillFileName); isRegularFile(p) {
		if s, ok := loadSkillFile(p, w.source, &w.diags); ok {
			s.realPath = filepath.Join(real, skillFileName)
			w.out = append(w.out, s)
		}
		return
	}
	if gi := filepath.Join(dir, ".gitignore"); isRegularFile(gi) {
		if text, err := readText(gi); err == nil {
			ign.Add(rel, text)
		} else {
			w.diags.add(KindWarning, gi, "cannot read .gitignore: %v", err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			w.diags.add(KindWarning, dir, "cannot read skills directory: %v", err)
		}
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || name == "node_modules" {
			continue
		}
		full := filepath.Join(dir, name)
		childReal := filepath.Join(real, name)
		mode := e.Type()
		if mode&fs.ModeSymlink != 0 {
			fi, err := os.Stat(full)
			if err != nil {
				continue // dangling link
			}
			mode = fi.Mode().Type()
			childReal = realPath(full)
		}
		childRel := name
		if rel != "" {
			childRel = rel + "/" + name
		}
		if ign.Match(childRel, mode.IsDir()) {
			continue
		}
		switch {
		case mode.IsDir():
			w.walk(full, childReal, childRel, ign, false)
		case loose && mode.IsRegular() && strings.HasSuffix(name, ".md"):
			if s, ok := loadSkillFile(full, w.source, &w.diags); ok {
				s.realPath = childReal
				w.out = append(w.out, s)
			}
		}
	}
}

// loadSkillFile reads and validates one skill file; path is absolute.
func loadSkillFile(path, source string, diags *diagnostics) (Skill, bool) {
	text, err := readText(path)
	if err != nil {
		diags.add(KindWarning, path, "cannot read skill file: %v", err)
		return Skill{}, false
	}
	fm, _, err := parseFrontmatter(text)
	if err != nil {
		line := 0
		var fe *frontmatterError
		if errors.As(err, &fe) {
			line = fe.Line
		}
		diags.addLine(KindWarning, path, line, "skill left out: %v", err)
		return Skill{}, false
	}
	base := filepath.Base(path)
	dir := filepath.Dir(path)
	name := filepath.Base(dir)
	if base != skillFileName {
		name = strings.TrimSuffix(base, ".md")
	}
	if v, present := fm["name"]; present && v != nil {
		if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
			name = s
		} else if !ok {
			diags.add(KindWarning, path, "name is not a string; using %q", name)
		}
	}
	for _, msg := range skillNameProblems(name) {
		diags.add(KindWarning, path, "%s", msg)
	}
	desc, isString := fmString(fm, "description")
	if strings.TrimSpace(desc) == "" {
		if _, present := fm["description"]; present && !isString && fm["description"] != nil {
			diags.add(KindWarning, path, "skill left out: description must be text")
		} else {
			diags.add(KindWarning, path, "skill left out: it has no description")
		}
		return Skill{}, false
	}
	if n := utf8.RuneCountInString(desc); n > maxSkillDescriptionLen {
		diags.add(KindWarning, path, "description is %d characters long, over the limit of %d", n, maxSkillDescriptionLen)
	}
	s := Skill{Name: name, Description: desc, FilePath: path, BaseDir: dir, Source: source}
	if v, present := fm["disable-model-invocation"]; present && v != nil {
		if b, ok := v.(bool); ok {
			s.DisableModelInvocation = b
		} else {
			diags.add(KindWarning, path, "disable-model-invocation should be true or false; treating it as false")
		}
	}
	return s, true
}

// skillNameProblems lists what is wrong with a skill name; each entry is one
// warning. An empty result means the name is fine.
func skillNameProblems(name string) []string {
	var out []string
	if n := utf8.RuneCountInString(name); n > maxSkillNameLen {
		out = append(out, "name is "+strconv.Itoa(n)+" characters long, over the limit of 64")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			out = append(out, "name may only use lowercase letters a-z, digits and hyphens")
			break
		}
	}
	if strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") {
		out = append(out, "name must not start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		out = append(out, "name must not contain two hyphens in a row")
	}
	return out
}

// expandSkill renders the `/skill:name args` expansion of s: a
// `<skill name="…" location="…">` block holding a line on how to resolve
// relative paths and the skill body (frontmatter stripped, trimmed), followed
// by a blank line and args when args is not blank. The file is read afresh so
// that edits made during a session show up; a read error is returned as is.
func expandSkill(s Skill, args string) (string, error) {
	text, err := readText(s.FilePath)
	if err != nil {
		return "", err
	}
	_, body, _ := splitFrontmatter(text)
	return skillBlock(s, strings.TrimSpace(body), args), nil
}

func skillBlock(s Skill, body, args string) string {
	baseDir := s.BaseDir
	if baseDir == "" {
		baseDir = filepath.Dir(s.FilePath)
	}
	var b strings.Builder
	b.WriteString(`<skill name="`)
	b.WriteString(s.Name)
	b.WriteString(`" location="`)
	b.WriteString(s.FilePath)
	b.WriteString("\">\nPaths in this skill are relative to ")
	b.WriteString(baseDir)
	b.WriteString(".\n\n")
	b.WriteString(body)
	b.WriteString("\n</skill>")
	if args = strings.TrimSpace(args); args != "" {
		b.WriteString("\n\n")
		b.WriteString(args)
	}
	return b.String()
}

// search says where [findSkills] and [findTemplates] look. Cwd, AgentDir
// and Home are directories (AgentDir and Home may be empty to leave their
// locations out). Project locations are used only when Trusted; otherwise
// each existing one is reported as skipped with SkipNote (default "project
// not trusted (use --approve)"). NoDefaults (`--no-skills`,
// `--no-prompt-templates`) turns off every location except Paths.
// SettingsPaths are absolute paths from settings.json; Paths are `--skill`
// or `--prompt-template` values, resolved against Cwd with `~` expanded.
type search struct {
	Cwd, AgentDir, Home string
	Trusted             bool
	SkipNote            string
	NoDefaults          bool
	SettingsPaths       []string
	Paths               []string
}

// skillSearch is the Search of [findSkills].
type skillSearch = search

// findSkills discovers skills in this order, the first skill of a name
// winning: project .pi/skills, .agents/skills in Cwd and each ancestor up to
// the git root (nearest first; up to the filesystem root outside a
// repository), agent-dir skills, ~/.agents/skills, settings paths, then
// `--skill` paths. Loose `*.md` files count only at the top of the .pi and
// agent-dir skills dirs. An explicit path may name a directory or a markdown
// file; one that does not exist yields a warning. The same file reached
// twice is loaded once, silently; a second skill of a taken name yields a
// collision diagnostic naming both files.
func findSkills(s skillSearch) ([]Skill, []diag.Diagnostic) {
	var ds diagnostics
	var lists [][]Skill
	addDir := func(dir, source string, loose bool) {
		skills, d := loadSkillsFromDir(dir, source, loose)
		lists = append(lists, skills)
		ds = append(ds, d...)
	}
	cwd, _ := filepath.Abs(s.Cwd)
	note := s.SkipNote
	if note == "" {
		note = defaultSkipNote
	}
	var userAgents string
	if s.Home != "" {
		userAgents = filepath.Join(s.Home, ".agents", "skills")
	}
	if !s.NoDefaults {
		if cwd != "" {
			proj := filepath.Join(ProjectDir(cwd), "skills")
			if s.Trusted {
				addDir(proj, SourceProject, true)
			} else if isDir(proj) {
				ds.add(KindSkipped, proj, "%s", note)
			}
			// The user's own directory resolved once, not for every
			// ancestor (each resolution walks the whole path). When it
			// does not exist, no ancestor's directory can resolve to it:
			// only its own name can match then.
			userReal, aliasable := "", false
			if userAgents != "" {
				r, err := filepath.EvalSymlinks(userAgents)
				userReal, aliasable = r, err == nil || !errors.Is(err, fs.ErrNotExist)
				if err != nil {
					userReal = filepath.Clean(userAgents)
				}
			}
			for _, dir := range agentsSkillDirs(cwd) {
				if userAgents != "" && (dir == userAgents || aliasable && realPath(dir) == userReal) {
					continue // loaded below as the user's own
				}
				if s.Trusted {
					addDir(dir, SourceProjectAgents, false)
				} else if isDir(dir) {
					ds.add(KindSkipped, dir, "%s", note)
				}
			}
		}
		if s.AgentDir != "" {
			addDir(filepath.Join(s.AgentDir, "skills"), SourceUser, true)
		}
		if userAgents != "" {
			addDir(userAgents, SourceUserAgents, false)
		}
		for _, p := range s.SettingsPaths {
			lists = append(lists, explicitSkills(p, SourceSettings, &ds))
		}
	}
	for _, p := range s.Paths {
		lists = append(lists, explicitSkills(resolvePath(p, cwd, s.Home), SourceCLI, &ds))
	}
	out, d := mergeSkills(lists...)
	ds = append(ds, d...)
	return out, ds
}

// agentsSkillDirs lists .agents/skills in cwd and each ancestor, nearest
// first, stopping at the nearest directory holding .git.
func agentsSkillDirs(cwd string) []string {
	dirs := ancestors(cwd)
	stop := len(dirs) - 1
	for i, d := range dirs {
		if exists(filepath.Join(d, ".git")) {
			stop = i
			break
		}
	}
	out := make([]string, 0, stop+1)
	for _, d := range dirs[:stop+1] {
		out = append(out, filepath.Join(d, ".agents", "skills"))
	}
	return out
}

func explicitSkills(path, source string, ds *diagnostics) []Skill {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			ds.add(KindWarning, path, "skill path does not exist")
		} else {
			ds.add(KindWarning, path, "cannot use skill path: %v", err)
		}
		return nil
	}
	if fi.IsDir() {
		skills, d := loadSkillsFromDir(path, source, false)
		*ds = append(*ds, d...)
		return skills
	}
	if !strings.HasSuffix(path, ".md") {
		ds.add(KindWarning, path, "skill path is neither a directory nor a markdown file")
		return nil
	}
	if s, ok := loadSkillFile(path, source, ds); ok {
		return []Skill{s}
	}
	return nil
}

// mergeSkills concatenates skill lists, keeping the first skill of each name
// and of each file.
func mergeSkills(lists ...[]Skill) ([]Skill, []diag.Diagnostic) {
	var ds diagnostics
	var out []Skill
	byName := map[string]int{}
	files := map[string]bool{}
	for _, l := range lists {
		for _, s := range l {
			real := s.realPath
			if real == "" {
				real = realPath(s.FilePath)
			}
			if files[real] {
				continue
			}
			files[real] = true
			if i, taken := byName[s.Name]; taken {
				ds.add(KindCollision, s.FilePath, "skill %q already loaded from %s; %s is ignored", s.Name, out[i].FilePath, s.FilePath)
				continue
			}
			byName[s.Name] = len(out)
			out = append(out, s)
		}
	}
	return out, ds
}
