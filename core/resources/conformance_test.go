package resources

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/piwasm/pi/core/diag"
)

// conformanceCase is one recorded input → output case from
// testdata/conformance.
type conformanceCase struct {
	Name     string          `json:"name"`
	Function string          `json:"function"`
	Inputs   json.RawMessage `json:"inputs"`
	Expected json.RawMessage `json:"expected"`
}

type conformanceFile struct {
	Fixtures map[string]json.RawMessage `json:"fixtures"`
	Cases    []conformanceCase          `json:"cases"`
}

func readConformance(t *testing.T, name string) conformanceFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "conformance", name))
	if err != nil {
		t.Fatal(err)
	}
	var f conformanceFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(f.Cases) == 0 {
		t.Fatalf("%s: no cases", name)
	}
	return f
}

func mustUnmarshal(t *testing.T, raw json.RawMessage, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
}

// writeTree creates files (and, for keys ending in "/", directories).
func writeTree(t *testing.T, files map[string]string) {
	t.Helper()
	for path, content := range files {
		if strings.HasSuffix(path, "/") {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestConformanceTemplates(t *testing.T) {
	f := readConformance(t, "templates.json")
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			switch {
			case c.Function == "substituteArgs":
				var in []json.RawMessage
				mustUnmarshal(t, c.Inputs, &in)
				var content, want string
				var args []string
				mustUnmarshal(t, in[0], &content)
				mustUnmarshal(t, in[1], &args)
				mustUnmarshal(t, c.Expected, &want)
				if got := Substitute(content, args); got != want {
					t.Errorf("Substitute(%q, %q) = %q, want %q", content, args, got, want)
				}
			case c.Function == "parseCommandArgs":
				var in []string
				mustUnmarshal(t, c.Inputs, &in)
				var want []string
				mustUnmarshal(t, c.Expected, &want)
				got := ParseArgs(in[0])
				if len(got) != 0 || len(want) != 0 {
					if !reflect.DeepEqual(got, want) {
						t.Errorf("ParseArgs(%q) = %q, want %q", in[0], got, want)
					}
				}
			case c.Function == "expandPromptTemplate":
				var in []json.RawMessage
				mustUnmarshal(t, c.Inputs, &in)
				var text, want string
				var raw []struct{ Name, Content string }
				mustUnmarshal(t, in[0], &text)
				mustUnmarshal(t, in[1], &raw)
				var tpls []Template
				for _, r := range raw {
					tpls = append(tpls, Template{Name: r.Name, Content: r.Content})
				}
				mustUnmarshal(t, c.Expected, &want)
				got := ExpandInput(text, tpls, nil)
				if got.Text != want {
					t.Errorf("ExpandInput(%q) = %q, want %q", text, got.Text, want)
				}
				if (got.Text != text) != (got.Kind == ExpansionTemplate) {
					t.Errorf("kind %q for %q → %q", got.Kind, text, got.Text)
				}
			case strings.HasPrefix(c.Function, "loadTemplateFromFile"):
				var in struct {
					Files map[string]string `json:"files"`
				}
				mustUnmarshal(t, c.Inputs, &in)
				var want []map[string]string
				mustUnmarshal(t, c.Expected, &want)
				dir := t.TempDir()
				files := map[string]string{}
				for name, content := range in.Files {
					files[filepath.Join(dir, name)] = content
				}
				writeTree(t, files)
				got, diags := loadTemplatesFromDir(dir, "test")
				if len(diags) != 0 {
					t.Errorf("diagnostics: %v", diags)
				}
				if len(got) != len(want) {
					t.Fatalf("got %d templates, want %d", len(got), len(want))
				}
				for i, w := range want {
					hint := w["argumentHint"]
					if hint == "__undefined__" {
						hint = ""
					}
					g := got[i]
					if g.Name != w["name"] || g.Description != w["description"] || g.ArgumentHint != hint || g.Content != w["content"] {
						t.Errorf("template %d = %+v, want %v", i, g, w)
					}
				}
			default:
				t.Fatalf("unknown function %q", c.Function)
			}
		})
	}
}

// ---- context files ----

type ctxInputs struct {
	Cwd                string            `json:"cwd"`
	AgentDir           string            `json:"agentDir"`
	Files              map[string]string `json:"files"`
	Dirs               []string          `json:"dirs"`
	NoContextFiles     bool              `json:"noContextFiles"`
	ProjectTrusted     *bool             `json:"projectTrusted"`
	Layout             string            `json:"layout"`
	SystemPromptOpt    string            `json:"options.systemPrompt"`
	AppendPromptOption []string          `json:"options.appendSystemPrompt"`
}

// ctxEnv is a fixture: a temp root holding the project (<cwd>), the agent dir
// (<agentDir>), a scratch dir (<tmp>) and a home dir.
type ctxEnv struct {
	root, cwd, agentDir, tmp, home string
}

func newCtxEnv(t *testing.T) ctxEnv {
	root := t.TempDir()
	e := ctxEnv{
		root:     root,
		cwd:      filepath.Join(root, "project"),
		agentDir: filepath.Join(root, "agent"),
		tmp:      filepath.Join(root, "tmp"),
		home:     filepath.Join(root, "home"),
	}
	for _, d := range []string{e.cwd, e.agentDir, e.tmp, e.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e ctxEnv) expand(s string) string {
	r := strings.NewReplacer("<cwd>", e.cwd, "<agentDir>", e.agentDir, "<tmp>", e.tmp, "<ROOT>", e.root)
	return r.Replace(s)
}

func (e ctxEnv) under(p string) bool {
	return strings.HasPrefix(p, e.root+string(filepath.Separator))
}

func (e ctxEnv) write(t *testing.T, in ctxInputs) {
	files := map[string]string{}
	for k, v := range in.Files {
		if v == "(valid skill)" {
			v = "---\nname: project-skill\ndescription: A project skill.\n---\nDo the thing."
		}
		files[e.expand(k)] = v
	}
	for _, d := range in.Dirs {
		files[e.expand(d)] = ""
	}
	writeTree(t, files)
}

func TestConformanceContextFiles(t *testing.T) {
	f := readConformance(t, "context-files.json")
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			switch {
			case c.Function == "loadProjectContextFiles" && strings.HasPrefix(c.Name, "computed:"):
				runComputedContext(t, c)
			case c.Function == "loadProjectContextFiles":
				runWorktreeContext(t, c)
			default:
				runLoaderContext(t, c)
			}
		})
	}
}

func runLoaderContext(t *testing.T, c conformanceCase) {
	var in ctxInputs
	mustUnmarshal(t, c.Inputs, &in)
	e := newCtxEnv(t)
	e.write(t, in)
	cfg := Config{Cwd: e.cwd, AgentDir: e.agentDir, Home: e.home, NoContextFiles: in.NoContextFiles, Approve: true}
	if in.Cwd != "" {
		cfg.Cwd = e.expand(in.Cwd)
	}
	if in.ProjectTrusted != nil && !*in.ProjectTrusted {
		cfg.Approve = false
	}
	if in.SystemPromptOpt != "" {
		cfg.SystemPrompt = []string{e.expand(in.SystemPromptOpt)}
	}
	for _, v := range in.AppendPromptOption {
		cfg.AppendSystemPrompt = append(cfg.AppendSystemPrompt, e.expand(v))
	}
	l, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var ctx []ContextFile
	for _, cf := range l.ContextFiles {
		if e.under(cf.Path) {
			ctx = append(ctx, cf)
		}
	}
	var exp any
	mustUnmarshal(t, c.Expected, &exp)
	switch c.Function {
	case "DefaultResourceLoader.getAgentsFiles":
		checkAgentsFiles(t, e, ctx, l.Diagnostics, exp)
	case "DefaultResourceLoader.getSystemPrompt":
		if want := exp.(string); l.CustomPrompt != want {
			t.Errorf("custom prompt %q, want %q", l.CustomPrompt, want)
		}
	case "DefaultResourceLoader.getAppendSystemPrompt":
		want := exp.(map[string]any)["contains"].(string)
		if !strings.Contains(l.AppendPrompt, want) {
			t.Errorf("append prompt %q lacks %q", l.AppendPrompt, want)
		}
	case "getSystemPrompt/getSystemPromptSource":
		m := exp.(map[string]any)
		if l.CustomPrompt != m["systemPrompt"].(string) {
			t.Errorf("custom prompt %q, want %q", l.CustomPrompt, m["systemPrompt"])
		}
		wantSrc := SourceCLI // the peer's "no source" is our "cli"
		if src, ok := m["source"].(map[string]any); ok {
			wantSrc = e.expand(src["path"].(string))
		}
		if l.CustomPromptSource != wantSrc {
			t.Errorf("source %q, want %q", l.CustomPromptSource, wantSrc)
		}
	case "getAppendSystemPrompt/getAppendSystemPromptSources":
		m := exp.(map[string]any)
		var wantParts []string
		for _, p := range m["appendSystemPrompt"].([]any) {
			wantParts = append(wantParts, p.(string))
		}
		if !reflect.DeepEqual(l.AppendParts, wantParts) {
			t.Errorf("append parts %q, want %q", l.AppendParts, wantParts)
		}
		if l.AppendPrompt != strings.Join(wantParts, "\n\n") {
			t.Errorf("append prompt %q", l.AppendPrompt)
		}
		var wantSrc, gotSrc []string
		for _, s := range m["sources"].([]any) {
			wantSrc = append(wantSrc, e.expand(s.(map[string]any)["path"].(string)))
		}
		for _, s := range l.AppendSources {
			if s != SourceCLI {
				gotSrc = append(gotSrc, s)
			}
		}
		if !reflect.DeepEqual(gotSrc, wantSrc) {
			t.Errorf("file sources %q, want %q", gotSrc, wantSrc)
		}
	case "DefaultResourceLoader (untrusted project)":
		m := exp.(map[string]any)
		if l.Trust.Trusted {
			t.Fatal("project trusted")
		}
		if l.CustomPrompt != m["getSystemPrompt"].(string) {
			t.Errorf("custom prompt %q", l.CustomPrompt)
		}
		for _, p := range m["agentsFiles_include"].([]any) {
			want := e.expand(p.(string))
			if !containsPath(ctx, want) {
				t.Errorf("context files lack %s", want)
			}
		}
		if len(l.ExtensionDirs) != int(m["extensions"].(float64)) {
			t.Errorf("extension dirs %v", l.ExtensionDirs)
		}
		for _, s := range l.Skills {
			if s.Name == "project-skill" {
				t.Errorf("project skill loaded")
			}
		}
		for _, tp := range l.Templates {
			if tp.Name == "project" {
				t.Errorf("project template loaded")
			}
		}
		// Each skipped project resource is explained.
		for _, rel := range []string{".pi/SYSTEM.md", ".pi/skills", ".pi/prompts", ".pi/extensions"} {
			if !hasDiag(l.Diagnostics, KindSkipped, filepath.Join(e.cwd, rel)) {
				t.Errorf("no skip diagnostic for %s: %v", rel, l.Diagnostics)
			}
		}
	default:
		t.Fatalf("unknown function %q", c.Function)
	}
}

func containsPath(files []ContextFile, path string) bool {
	for _, f := range files {
		if f.Path == path {
			return true
		}
	}
	return false
}

func hasDiag(ds []diag.Diagnostic, kind, path string) bool {
	for _, d := range ds {
		if d.Kind == kind && d.Path == path {
			return true
		}
	}
	return false
}

func checkAgentsFiles(t *testing.T, e ctxEnv, got []ContextFile, diags []diag.Diagnostic, exp any) {
	switch exp := exp.(type) {
	case []any:
		var want []ContextFile
		for _, w := range exp {
			m := w.(map[string]any)
			want = append(want, ContextFile{Path: e.expand(m["path"].(string)), Content: m["content"].(string)})
		}
		if len(got) != 0 || len(want) != 0 {
			if !reflect.DeepEqual(got, want) {
				t.Errorf("context files %+v, want %+v", got, want)
			}
		}
	case map[string]any:
		if s, ok := exp["some_path_includes"].(string); ok {
			found := false
			for _, f := range got {
				found = found || strings.Contains(f.Path, s)
			}
			if !found {
				t.Errorf("no context file path includes %q: %+v", s, got)
			}
		}
		if ce, ok := exp["containsEqual"].(map[string]any); ok {
			want := ContextFile{Path: e.expand(ce["path"].(string)), Content: ce["content"].(string)}
			found := false
			for _, f := range got {
				found = found || f == want
			}
			if !found {
				t.Errorf("context files %+v lack %+v", got, want)
			}
		}
		if nw, ok := exp["no_warning_for"].([]any); ok {
			for _, p := range nw {
				path := e.expand(p.(string))
				for _, d := range diags {
					if d.Path == path {
						t.Errorf("unexpected diagnostic %v", d)
					}
				}
			}
		}
	}
}

func runComputedContext(t *testing.T, c conformanceCase) {
	var ins []ctxInputs
	mustUnmarshal(t, c.Inputs, &ins)
	in := ins[0]
	e := newCtxEnv(t)
	files := map[string]string{}
	for k, v := range in.Files {
		p := filepath.Join(e.root, filepath.FromSlash(k))
		if strings.HasSuffix(k, "/") {
			p += "/"
		}
		files[p] = v
	}
	writeTree(t, files)
	cwd := e.expand(in.Cwd)
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	got, _ := loadContextFiles(e.expand(in.AgentDir), cwd)
	var mine []ContextFile
	for _, f := range got {
		if e.under(f.Path) {
			mine = append(mine, f)
		}
	}
	var want []ContextFile
	var exp []map[string]string
	mustUnmarshal(t, c.Expected, &exp)
	for _, w := range exp {
		want = append(want, ContextFile{Path: e.expand(w["path"]), Content: w["content"]})
	}
	if !reflect.DeepEqual(mine, want) {
		t.Errorf("context files %+v, want %+v", mine, want)
	}
}

// runWorktreeContext builds the git layouts the cases describe in words.
func runWorktreeContext(t *testing.T, c conformanceCase) {
	var in ctxInputs
	mustUnmarshal(t, c.Inputs, &in)
	root := t.TempDir()
	j := func(parts ...string) string { return filepath.Join(append([]string{root}, parts...)...) }
	mkdir := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) { writeTree(t, map[string]string{p: s}) }
	var cwd string
	// fileBase maps a file key of the case to an absolute path.
	fileBase := func(k string) string { return j(filepath.FromSlash(k)) }
	switch {
	case strings.Contains(in.Layout, "nested worktree") || strings.Contains(in.Layout, "linked worktree <t>/outer/main/worktrees/feat"):
		main := j("outer", "main")
		wt := filepath.Join(main, "worktrees", "feat")
		gd := filepath.Join(main, ".git", "worktrees", "feat")
		mkdir(filepath.Join(main, ".git", "objects"))
		write(filepath.Join(gd, "commondir"), "../..\n")
		write(filepath.Join(gd, "gitdir"), filepath.Join(wt, ".git")+"\n")
		write(filepath.Join(wt, ".git"), "gitdir: "+gd+"\n")
		cwd = filepath.Join(wt, "src")
		fileBase = func(k string) string {
			if rest, ok := strings.CutPrefix(k, "main/"); ok {
				return filepath.Join(main, filepath.FromSlash(rest))
			}
			return j(filepath.FromSlash(k))
		}
	case strings.HasPrefix(in.Layout, "proj/.bare"):
		bare := j("proj", ".bare")
		wt := j("proj", "main")
		gd := filepath.Join(bare, "worktrees", "main")
		mkdir(filepath.Join(bare, "objects"))
		write(filepath.Join(bare, "config"), "[core]\n\tbare = true\n")
		write(j("proj", ".git"), "gitdir: ./.bare\n")
		write(filepath.Join(gd, "commondir"), "../..\n")
		write(filepath.Join(wt, ".git"), "gitdir: "+gd+"\n")
		cwd = wt
	case strings.HasPrefix(in.Layout, "outer/main repo, sibling worktree"):
		main := j("outer", "main")
		wt := j("outer", "sib-feat")
		gd := filepath.Join(main, ".git", "worktrees", "sib-feat")
		mkdir(filepath.Join(main, ".git", "objects"))
		write(filepath.Join(gd, "commondir"), "../..\n")
		write(filepath.Join(wt, ".git"), "gitdir: "+gd+"\n")
		cwd = filepath.Join(wt, "src")
	case strings.HasPrefix(in.Layout, "super/vendor/lib is a submodule"):
		mkdir(j("super", ".git", "modules", "vendor", "lib", "objects"))
		write(j("super", ".git", "modules", "vendor", "lib", "HEAD"), "ref: refs/heads/main\n")
		write(j("super", "vendor", "lib", ".git"), "gitdir: ../../.git/modules/vendor/lib\n")
		cwd = j("super", "vendor", "lib", "src")
	case in.Layout == "":
		cwd = j(filepath.FromSlash(in.Cwd))
		if strings.Contains(c.Name, "ordinary repo root") {
			mkdir(j("outer", "repo", ".git"))
		}
	default:
		t.Fatalf("unknown layout %q", in.Layout)
	}
	files := map[string]string{}
	for k, v := range in.Files {
		files[fileBase(k)] = v
	}
	writeTree(t, files)
	mkdir(cwd)
	got, diags := loadContextFiles(filepath.Join(root, "no-agent-dir"), cwd)
	var contents []string
	for _, f := range got {
		if strings.HasPrefix(f.Path, root+string(filepath.Separator)) {
			contents = append(contents, f.Content)
		}
	}
	var want []string
	mustUnmarshal(t, c.Expected, &want)
	if !reflect.DeepEqual(contents, want) {
		t.Errorf("contents %q, want %q (diagnostics %v)", contents, want, diags)
	}
}

// ---- skills ----

type skillFixture struct {
	Frontmatter        json.RawMessage `json:"frontmatter"`
	RawFrontmatterLine []string        `json:"raw_frontmatter_lines"`
}

// buildSkillFixtures writes the fixture skills under dir and returns dir.
func buildSkillFixtures(t *testing.T, fixtures map[string]json.RawMessage) string {
	dir := t.TempDir()
	files := map[string]string{}
	for key, raw := range fixtures {
		var fx skillFixture
		mustUnmarshal(t, raw, &fx)
		path := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(key, "<FIXTURES>/")))
		body := "# Skill\n\nBody of " + key + ".\n"
		var fm string
		switch {
		case fx.RawFrontmatterLine != nil:
			fm = strings.Join(fx.RawFrontmatterLine, "\n") + "\n"
		case string(fx.Frontmatter) == "null" || fx.Frontmatter == nil:
			files[path] = body
			continue
		default:
			fm = fixtureYAML(t, fx.Frontmatter)
		}
		files[path] = "---\n" + fm + "---\n" + body
	}
	writeTree(t, files)
	return dir
}

// fixtureYAML renders a frontmatter object with keys in a stable order and
// multi-line strings as literal blocks (which keep a final newline).
func fixtureYAML(t *testing.T, raw json.RawMessage) string {
	var m map[string]any
	mustUnmarshal(t, raw, &m)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			if strings.Contains(v, "\n") {
				b.WriteString(k + ": |\n")
				for _, line := range strings.Split(v, "\n") {
					b.WriteString("  " + line + "\n")
				}
				continue
			}
			out, err := yaml.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(k + ": " + string(out))
		default:
			out, err := yaml.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(k + ": " + string(out))
		}
	}
	return b.String()
}

type wantSkill struct {
	Name                   string `json:"name"`
	Description            string `json:"description"`
	FilePath               string `json:"filePath"`
	BaseDir                string `json:"baseDir"`
	DisableModelInvocation bool   `json:"disableModelInvocation"`
}

type wantDiag struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    string `json:"path"`
}

// lostSkillPaths holds, per case, the skill path the recording lost: the
// peer's test loads its valid-skill fixture directory there.
var lostSkillPaths = map[string]string{
	"skills > loadSkills with options > should load from explicit skillPaths": "<FIXTURES>/skills/valid-skill",
}

func TestConformanceSkills(t *testing.T) {
	f := readConformance(t, "skills.json")
	fixtures := buildSkillFixtures(t, f.Fixtures)
	home := t.TempDir()
	empty := t.TempDir()
	expand := func(s string) string {
		s = strings.ReplaceAll(s, "<FIXTURES>", fixtures)
		s = strings.ReplaceAll(s, "<HOME>", home)
		return strings.ReplaceAll(s, "<EMPTY>", empty)
	}
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			var ins []map[string]any
			mustUnmarshal(t, c.Inputs, &ins)
			in := ins[0]
			var exp struct {
				Skills      []wantSkill `json:"skills"`
				Diagnostics []wantDiag  `json:"diagnostics"`
			}
			mustUnmarshal(t, c.Expected, &exp)
			var got []Skill
			var diags []diag.Diagnostic
			switch c.Function {
			case "loadSkillsFromDir":
				got, diags = loadSkillsFromDir(expand(in["dir"].(string)), in["source"].(string), true)
			case "loadSkills":
				var paths []string
				for _, p := range in["skillPaths"].([]any) {
					s := p.(string)
					// The recorded input lost the path of the skill it
					// loads (the peer's test passes its fixture directory);
					// it is restored from the case name, never from the
					// expected answer.
					if fixed, ok := lostSkillPaths[c.Name]; ok && s == "<EMPTY>" {
						s = fixed
					}
					paths = append(paths, expand(s))
				}
				got, diags = findSkills(skillSearch{
					Cwd:      expand(in["cwd"].(string)),
					AgentDir: expand(in["agentDir"].(string)),
					Home:     home,
					Trusted:  true,
					Paths:    paths,
				})
			default:
				t.Fatalf("unknown function %q", c.Function)
			}
			if len(got) != len(exp.Skills) {
				t.Fatalf("got %d skills %+v, want %d", len(got), got, len(exp.Skills))
			}
			for i, w := range exp.Skills {
				g := got[i]
				w.FilePath, w.BaseDir = expand(w.FilePath), expand(w.BaseDir)
				gw := wantSkill{g.Name, g.Description, g.FilePath, g.BaseDir, g.DisableModelInvocation}
				if gw != w {
					t.Errorf("skill %d = %+v, want %+v", i, gw, w)
				}
			}
			if len(diags) != len(exp.Diagnostics) {
				t.Fatalf("diagnostics %v, want %+v", diags, exp.Diagnostics)
			}
			for i, w := range exp.Diagnostics {
				if diags[i].Kind != w.Type || diags[i].Path != expand(w.Path) {
					t.Errorf("diagnostic %d = %v, want %s at %s (%s)", i, diags[i], w.Type, expand(w.Path), w.Message)
				}
			}
		})
	}
}

// The collision pair of the conformance file, loaded together: the first
// wins and the collision names both files.
func TestConformanceSkillCollision(t *testing.T) {
	f := readConformance(t, "skills.json")
	fixtures := buildSkillFixtures(t, f.Fixtures)
	first := filepath.Join(fixtures, "skills-collision", "first")
	second := filepath.Join(fixtures, "skills-collision", "second")
	got, diags := findSkills(skillSearch{Cwd: t.TempDir(), Trusted: true, Paths: []string{first, second}})
	if len(got) != 1 || got[0].Description != "First calendar skill." {
		t.Fatalf("skills %+v", got)
	}
	if len(diags) != 1 || diags[0].Kind != KindCollision ||
		!strings.Contains(diags[0].Message, filepath.Join(first, "calendar", "SKILL.md")) ||
		!strings.Contains(diags[0].Message, filepath.Join(second, "calendar", "SKILL.md")) {
		t.Fatalf("diagnostics %v", diags)
	}
}
