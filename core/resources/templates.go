package resources

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/piwasm/pi/core/diag"
)

// descriptionCut is the number of characters of the first body line used as
// a template description when the frontmatter has none.
const descriptionCut = 60

// Template is a prompt template: a markdown file whose body is expanded by
// `/name args`. Name is the file name without `.md`; Content is the body
// with frontmatter stripped and surrounding whitespace trimmed. FilePath is
// absolute.
type Template struct {
	Name         string
	Description  string
	ArgumentHint string
	Content      string
	FilePath     string
	Source       string
}

// LoadTemplateFile loads one template file. The description is the
// frontmatter `description`, else the first non-blank body line cut to 60
// characters with "..." added when it was longer. `argument-hint` is kept
// when it is non-empty text. ok is false (with a diagnostic) when the file
// cannot be read or its frontmatter is invalid.
func LoadTemplateFile(path, source string) (t Template, diags []diag.Diagnostic, ok bool) {
	var ds diagnostics
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	t, ok = loadTemplateFile(abs, source, &ds)
	return t, ds, ok
}

func loadTemplateFile(path, source string, diags *diagnostics) (Template, bool) {
	text, err := readText(path)
	if err != nil {
		diags.add(KindWarning, path, "cannot read prompt template: %v", err)
		return Template{}, false
	}
	fm, body, err := parseFrontmatter(text)
	if err != nil {
		line := 0
		var fe *frontmatterError
		if errors.As(err, &fe) {
			line = fe.Line
		}
		diags.addLine(KindWarning, path, line, "prompt template left out: %v", err)
		return Template{}, false
	}
	if _, _, hasFM := splitFrontmatter(text); !hasFM {
		// As in the other harness, only a body that follows front matter is
		// trimmed; a plain file is used as written (line endings made LF),
		// so a template that starts or ends with a blank line keeps it.
		body = normalizeText(text)
	}
	t := Template{
		Name:     strings.TrimSuffix(filepath.Base(path), ".md"),
		Content:  body,
		FilePath: path,
		Source:   source,
	}
	if d, _ := fmString(fm, "description"); strings.TrimSpace(d) != "" {
		t.Description = strings.TrimSpace(d)
	} else {
		t.Description = firstLineDescription(body)
	}
	if h, _ := fmString(fm, "argument-hint"); strings.TrimSpace(h) != "" {
		t.ArgumentHint = h
	}
	return t, true
}

func firstLineDescription(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if utf8.RuneCountInString(line) <= descriptionCut {
			return line
		}
		return string([]rune(line)[:descriptionCut]) + "..."
	}
	return ""
}

// loadTemplatesFromDir loads the `*.md` files directly in dir (no
// recursion, dot files passed over), in name order. A missing dir yields
// nothing and no diagnostic.
func loadTemplatesFromDir(dir, source string) ([]Template, []diag.Diagnostic) {
	var ds diagnostics
	abs, err := filepath.Abs(dir)
	if err != nil {
		ds.add(KindWarning, dir, "cannot resolve prompt template directory: %v", err)
		return nil, ds
	}
	out := loadTemplatesDir(abs, source, &ds)
	return out, ds
}

func loadTemplatesDir(dir, source string, diags *diagnostics) []Template {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrInvalid) {
			diags.add(KindWarning, dir, "cannot read prompt template directory: %v", err)
		}
		return nil
	}
	var out []Template
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".md") {
			continue
		}
		full := filepath.Join(dir, name)
		if !isRegularFile(full) {
			continue
		}
		if t, ok := loadTemplateFile(full, source, diags); ok {
			out = append(out, t)
		}
	}
	return out
}

// expandTemplate substitutes the arguments in args (split by [ParseArgs])
// into the template's content (see [Substitute]).
func expandTemplate(t Template, args string) string {
	return Substitute(t.Content, ParseArgs(args))
}

// Expansion kinds.
const (
	ExpansionText     = "text"
	ExpansionTemplate = "template"
	ExpansionSkill    = "skill"
)

// Expansion is the result of [ExpandInput]. Kind is "text" (unchanged
// input), "template" or "skill"; Name is the template or skill used. Err is
// set when a matching skill's file could not be read, in which case Text is
// the unchanged input.
type Expansion struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
	Text string `json:"text"`
	Err  error  `json:"-"`
}

// ExpandInput expands user input that starts with a slash command:
//
//   - `/skill:name args` becomes the skill block of the skill called name
//     (see [expandSkill]), the first of that name winning;
//   - `/name rest` becomes the template called name with rest as its
//     arguments, where name is the whole run of non-whitespace after the `/`
//     (so `/a.b x` looks for a template "a.b"); names are case-sensitive.
//
// Anything else, including an unknown name, a bare `/` and input with
// leading whitespace, comes back unchanged with Kind "text".
func ExpandInput(text string, templates []Template, skills []Skill) Expansion {
	unchanged := Expansion{Kind: ExpansionText, Text: text}
	if !strings.HasPrefix(text, "/") {
		return unchanged
	}
	end := endOfWord(text, 1)
	name := text[1:end]
	if name == "" {
		return unchanged
	}
	rest := text[end:]
	if skillName, ok := strings.CutPrefix(name, "skill:"); ok && skillName != "" {
		for _, s := range skills {
			if s.Name != skillName {
				continue
			}
			out, err := expandSkill(s, rest)
			if err != nil {
				unchanged.Err = err
				return unchanged
			}
			return Expansion{Kind: ExpansionSkill, Name: s.Name, Text: out}
		}
	}
	for _, t := range templates {
		if t.Name == name {
			return Expansion{Kind: ExpansionTemplate, Name: t.Name, Text: expandTemplate(t, rest)}
		}
	}
	return unchanged
}

// templateSearch is the Search of [findTemplates].
type templateSearch = search

// findTemplates discovers prompt templates in this order, the first of a
// name winning: project .pi/prompts (trusted projects only), agent-dir
// prompts, settings paths, then `--prompt-template` paths. A path may name a
// markdown file or a directory (not scanned recursively); one that does not
// exist yields a warning. A second template of a taken name yields a
// collision diagnostic naming both files. NoDefaults keeps only Paths.
func findTemplates(s templateSearch) ([]Template, []diag.Diagnostic) {
	var ds diagnostics
	var all []Template
	cwd, _ := filepath.Abs(s.Cwd)
	note := s.SkipNote
	if note == "" {
		note = defaultSkipNote
	}
	if !s.NoDefaults {
		if cwd != "" {
			proj := filepath.Join(ProjectDir(cwd), "prompts")
			if s.Trusted {
				all = append(all, loadTemplatesDir(proj, SourceProject, &ds)...)
			} else if isDir(proj) {
				ds.add(KindSkipped, proj, "%s", note)
			}
		}
		if s.AgentDir != "" {
			if dir, err := filepath.Abs(filepath.Join(s.AgentDir, "prompts")); err == nil {
				all = append(all, loadTemplatesDir(dir, SourceUser, &ds)...)
			}
		}
		for _, p := range s.SettingsPaths {
			all = append(all, explicitTemplates(p, SourceSettings, &ds)...)
		}
	}
	for _, p := range s.Paths {
		all = append(all, explicitTemplates(resolvePath(p, cwd, s.Home), SourceCLI, &ds)...)
	}
	var out []Template
	byName := map[string]int{}
	files := map[string]bool{}
	for _, t := range all {
		real := realPath(t.FilePath)
		if files[real] {
			continue
		}
		files[real] = true
		if i, taken := byName[t.Name]; taken {
			ds.add(KindCollision, t.FilePath, "prompt template %q already loaded from %s; %s is ignored", t.Name, out[i].FilePath, t.FilePath)
			continue
		}
		byName[t.Name] = len(out)
		out = append(out, t)
	}
	return out, ds
}

func explicitTemplates(path, source string, ds *diagnostics) []Template {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			ds.add(KindWarning, path, "prompt template path does not exist")
		} else {
			ds.add(KindWarning, path, "cannot use prompt template path: %v", err)
		}
		return nil
	}
	if fi.IsDir() {
		return loadTemplatesDir(path, source, ds)
	}
	if !strings.HasSuffix(path, ".md") {
		ds.add(KindWarning, path, "prompt template path is neither a directory nor a markdown file")
		return nil
	}
	if t, ok := loadTemplateFile(path, source, ds); ok {
		return []Template{t}
	}
	return nil
}
