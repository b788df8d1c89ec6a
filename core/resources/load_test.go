package resources

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// project builds a project with every kind of resource, project-local and
// global, and returns the Config to load it.
func project(t *testing.T) (Config, string) {
	root := t.TempDir()
	cwd := filepath.Join(root, "repo", "app")
	agent := filepath.Join(root, "home", ".pi", "agent")
	home := filepath.Join(root, "home")
	skill := func(desc string) string { return "---\ndescription: " + desc + "\n---\nBody of " + desc }
	writeTree(t, map[string]string{
		filepath.Join(root, "repo", ".git") + "/":                           "",
		filepath.Join(root, "repo", "AGENTS.md"):                            "repo rules",
		filepath.Join(cwd, "CLAUDE.md"):                                     "app rules",
		filepath.Join(agent, "AGENTS.md"):                                   "global rules",
		filepath.Join(agent, "SYSTEM.md"):                                   "global system",
		filepath.Join(agent, "APPEND_SYSTEM.md"):                            "global append",
		filepath.Join(agent, "settings.json"):                               `{"skills": ["extra-skills"], "sections": {"style": {"text": "global style"}, "tone": {"text": "calm"}}, "variables": {"who": "global"}}`,
		filepath.Join(agent, "extra-skills", "shared", "SKILL.md"):          skill("shared skill"),
		filepath.Join(agent, "skills", "deploy", "SKILL.md"):                skill("global deploy"),
		filepath.Join(agent, "skills", "loose.md"):                          skill("a loose skill"),
		filepath.Join(agent, "prompts", "fix.md"):                           "Fix $1",
		filepath.Join(agent, "extensions", "audit") + "/":                   "",
		filepath.Join(agent, "extensions", ".cache") + "/":                  "",
		filepath.Join(home, ".agents", "skills", "home-skill", "SKILL.md"):  skill("from ~/.agents"),
		filepath.Join(cwd, ".pi", "SYSTEM.md"):                              "project system",
		filepath.Join(cwd, ".pi", "APPEND_SYSTEM.md"):                       "project append",
		filepath.Join(cwd, ".pi", "settings.json"):                          `{"prompts": ["../tools/prompts"], "sections": {"style": {"text": "project style"}}, "variables": {"who": "project"}, "defaultProjectTrust": "always"}`,
		filepath.Join(cwd, "tools", "prompts", "lint.md"):                   "Lint",
		filepath.Join(cwd, ".pi", "skills", "deploy", "SKILL.md"):           skill("project deploy"),
		filepath.Join(cwd, ".pi", "prompts", "fix.md"):                      "Project fix $1",
		filepath.Join(cwd, ".pi", "extensions", "guard") + "/":              "",
		filepath.Join(cwd, ".agents", "skills", "near", "SKILL.md"):         skill("near"),
		filepath.Join(root, "repo", ".agents", "skills", "far", "SKILL.md"): skill("far"),
		filepath.Join(root, ".agents", "skills", "above", "SKILL.md"):       skill("above the git root"),
	})
	return Config{Cwd: cwd, AgentDir: agent, Home: home}, root
}

func names[T any](items []T, name func(T) string) string {
	var out []string
	for _, it := range items {
		out = append(out, name(it))
	}
	return strings.Join(out, ",")
}

func skillNames(l *Loaded) string {
	return names(l.Skills, func(s Skill) string { return s.Name + "@" + s.Source })
}

func TestLoadTrusted(t *testing.T) {
	cfg, _ := project(t)
	cfg.Approve = true
	l, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !l.Trust.Trusted {
		t.Fatalf("trust %+v", l.Trust)
	}
	if got := names(l.ContextFiles, func(c ContextFile) string { return c.Content }); !strings.HasSuffix(got, "global rules,repo rules,app rules") || !strings.HasPrefix(got, "global rules") {
		t.Errorf("context files %s", got)
	}
	if l.CustomPrompt != "project system" || l.CustomPromptSource != filepath.Join(cfg.Cwd, ".pi", "SYSTEM.md") {
		t.Errorf("custom prompt %q from %q", l.CustomPrompt, l.CustomPromptSource)
	}
	if l.AppendPrompt != "project append" {
		t.Errorf("append %q", l.AppendPrompt)
	}
	want := "deploy@project,near@project-agents,far@project-agents,loose@user,home-skill@user-agents,shared@settings"
	if got := skillNames(l); got != want {
		t.Errorf("skills %s\nwant   %s", got, want)
	}
	if got := names(l.Templates, func(t Template) string { return t.Name + "=" + t.Content }); got != "fix=Project fix $1,lint=Lint" {
		t.Errorf("templates %s", got)
	}
	if got := names(l.Settings.Sections, func(s SettingsSection) string { return s.Name + "=" + s.Text }); got != "style=project style,tone=calm" {
		t.Errorf("sections %s", got)
	}
	if l.Settings.Variables["who"] != "project" || len(l.Settings.Files) != 2 {
		t.Errorf("settings %+v", l.Settings)
	}
	if got := strings.Join(l.ExtensionDirs, ","); got != filepath.Join(cfg.AgentDir, "extensions", "audit")+","+filepath.Join(cfg.Cwd, ".pi", "extensions", "guard") {
		t.Errorf("extension dirs %s", got)
	}
	// Collisions: the global deploy skill and the global fix template lose;
	// project settings cannot set defaultProjectTrust.
	var kinds []string
	for _, d := range l.Diagnostics {
		kinds = append(kinds, d.Kind)
	}
	if got := strings.Join(kinds, ","); got != "ignored-setting,collision,collision" {
		t.Errorf("diagnostics %v", l.Diagnostics)
	}
}

func TestLoadUntrusted(t *testing.T) {
	cfg, _ := project(t)
	l, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if l.Trust.Trusted || l.Trust.Reason == "" {
		t.Fatalf("trust %+v", l.Trust)
	}
	if l.CustomPrompt != "global system" || l.AppendPrompt != "global append" {
		t.Errorf("prompts %q %q", l.CustomPrompt, l.AppendPrompt)
	}
	if len(l.ContextFiles) < 3 {
		t.Errorf("context files must load regardless of trust: %v", l.ContextFiles)
	}
	if got := skillNames(l); got != "deploy@user,loose@user,home-skill@user-agents,shared@settings" {
		t.Errorf("skills %s", got)
	}
	if got := names(l.Templates, func(t Template) string { return t.Name + "=" + t.Content }); got != "fix=Fix $1" {
		t.Errorf("templates %s", got)
	}
	if got := names(l.Settings.Sections, func(s SettingsSection) string { return s.Text }); got != "global style,calm" {
		t.Errorf("sections %s", got)
	}
	if len(l.ExtensionDirs) != 1 {
		t.Errorf("extension dirs %v", l.ExtensionDirs)
	}
	skipped := map[string]bool{}
	for _, d := range l.Diagnostics {
		if d.Kind == KindSkipped {
			rel, _ := filepath.Rel(filepath.Dir(cfg.Cwd), d.Path)
			skipped[filepath.ToSlash(rel)] = true
			if !strings.Contains(d.Message, "--approve") {
				t.Errorf("skip reason does not say how to trust: %v", d)
			}
			// The kind is said once: "skipped: PATH: reason".
			if strings.Count(d.String(), "skipped") != 1 {
				t.Errorf("doubled wording: %s", d)
			}
		}
	}
	for _, want := range []string{"app/.pi/settings.json", "app/.pi/SYSTEM.md", "app/.pi/APPEND_SYSTEM.md", "app/.pi/skills", "app/.agents/skills", ".agents/skills", "app/.pi/prompts", "app/.pi/extensions"} {
		if !skipped[want] {
			t.Errorf("no skip diagnostic for %s (have %v)", want, skipped)
		}
	}
}

func TestLoadStoredTrustAndDefault(t *testing.T) {
	cfg, _ := project(t)
	if err := SaveTrust(cfg.AgentDir, cfg.Cwd, true); err != nil {
		t.Fatal(err)
	}
	if l, _ := Load(cfg); !l.Trust.Trusted || !strings.Contains(l.Trust.Reason, TrustFileName) {
		t.Errorf("stored trust not used: %+v", l.Trust)
	}
	cfg.NoApprove = true
	l, _ := Load(cfg)
	if l.Trust.Trusted || l.CustomPrompt != "global system" {
		t.Errorf("--no-approve: %+v %q", l.Trust, l.CustomPrompt)
	}
	for _, d := range l.Diagnostics {
		if d.Kind == KindSkipped && !strings.Contains(d.Message, "--no-approve") {
			t.Errorf("skip reason: %v", d)
		}
	}

	cfg2, _ := project(t)
	writeTree(t, map[string]string{filepath.Join(cfg2.AgentDir, "settings.json"): `{"defaultProjectTrust": "always"}`})
	if l, _ := Load(cfg2); !l.Trust.Trusted || !strings.Contains(l.Trust.Reason, "defaultProjectTrust") {
		t.Errorf("defaultProjectTrust not used: %+v", l.Trust)
	}
}

func TestLoadFlags(t *testing.T) {
	cfg, root := project(t)
	cfg.Approve = true
	writeTree(t, map[string]string{
		filepath.Join(root, "sys.md"):                      "\uFEFFfrom file",
		filepath.Join(root, "cli-skills", "x", "SKILL.md"): "---\ndescription: cli\n---\n",
		filepath.Join(root, "one.md"):                      "One template",
	})
	cfg.SystemPrompt = []string{"ignored", filepath.Join(root, "sys.md")}
	cfg.AppendSystemPrompt = []string{"first", "~/../sys.md", "third"}
	cfg.NoSkills = true
	cfg.NoPromptTemplates = true
	cfg.NoContextFiles = true
	cfg.SkillPaths = []string{filepath.Join(root, "cli-skills"), "missing-skills"}
	cfg.TemplatePaths = []string{filepath.Join(root, "one.md")}
	cfg.ExtensionPaths = []string{root, "nope"}
	l, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if l.CustomPrompt != "from file" || l.CustomPromptSource != filepath.Join(root, "sys.md") {
		t.Errorf("custom %q from %q", l.CustomPrompt, l.CustomPromptSource)
	}
	if l.AppendPrompt != "first\n\nfrom file\n\nthird" || strings.Join(l.AppendSources, ",") != "cli,"+filepath.Join(root, "sys.md")+",cli" {
		t.Errorf("append %q from %v", l.AppendPrompt, l.AppendSources)
	}
	if len(l.ContextFiles) != 0 {
		t.Errorf("context files %v", l.ContextFiles)
	}
	if got := skillNames(l); got != "x@cli" {
		t.Errorf("skills %s", got)
	}
	if len(l.Templates) != 1 || l.Templates[0].Name != "one" || l.Templates[0].Source != SourceCLI {
		t.Errorf("templates %+v", l.Templates)
	}
	if len(l.ExtensionDirs) != 3 || l.ExtensionDirs[2] != root {
		t.Errorf("extension dirs %v", l.ExtensionDirs)
	}
	missing := 0
	for _, d := range l.Diagnostics {
		if d.Kind == KindWarning && (strings.HasSuffix(d.Path, "missing-skills") || strings.HasSuffix(d.Path, "nope")) {
			missing++
		}
	}
	if missing != 2 {
		t.Errorf("diagnostics %v", l.Diagnostics)
	}
}

func TestLoadJSON(t *testing.T) {
	cfg, _ := project(t)
	cfg.Approve = true
	l, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		ContextFiles []map[string]any `json:"contextFiles"`
		Skills       []map[string]any `json:"skills"`
		Templates    []map[string]any `json:"templates"`
		Diagnostics  []map[string]any `json:"diagnostics"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	need := func(what string, items []map[string]any, keys ...string) {
		if len(items) == 0 {
			t.Errorf("no %s in %s", what, b)
		}
		for _, it := range items {
			for _, k := range keys {
				if _, ok := it[k]; !ok {
					t.Errorf("%s item lacks %q: %v", what, k, it)
				}
			}
		}
	}
	need("contextFiles", v.ContextFiles, "path")
	need("skills", v.Skills, "name", "description", "path", "visible")
	need("templates", v.Templates, "name", "description", "argumentHint", "path")
	need("diagnostics", v.Diagnostics, "kind", "path", "message")
	if _, ok := v.ContextFiles[0]["content"]; ok {
		t.Errorf("context file content in listing")
	}
}

func TestLoadNeedsCwd(t *testing.T) {
	if _, err := Load(Config{}); err != ErrNoCwd {
		t.Fatalf("err = %v", err)
	}
}

func TestAgentDir(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == agentDirEnv {
				return v
			}
			return ""
		}
	}
	if got := AgentDir(env(""), "/h"); got != filepath.Join("/h", ".pi", "agent") {
		t.Errorf("default %s", got)
	}
	if got := AgentDir(nil, "/h"); got != filepath.Join("/h", ".pi", "agent") {
		t.Errorf("nil getenv %s", got)
	}
	if got := AgentDir(env("/custom"), "/h"); got != "/custom" {
		t.Errorf("env %s", got)
	}
	if got := AgentDir(env("~/x"), "/h"); got != filepath.Join("/h", "x") {
		t.Errorf("env with ~ %s", got)
	}
	if got := ExpandHome("~user/x", "/h"); got != "~user/x" {
		t.Errorf("~user expanded: %s", got)
	}
}
