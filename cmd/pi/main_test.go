package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/diag"
)

// cli runs pi in-process with an isolated agent dir and home.
type cli struct {
	t         *testing.T
	agentDir  string
	home      string
	env       map[string]string // further environment variables
	stdinText string            // what the next run reads on stdin
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	home := t.TempDir()
	return &cli{t: t, home: home, agentDir: filepath.Join(home, ".pi", "agent")}
}

func (c *cli) run(args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	a := &app{
		stdin: strings.NewReader(c.stdinText), stdout: &out, stderr: &errb,
		getenv: func(k string) string {
			if v, ok := c.env[k]; ok {
				return v
			}
			if k == "PI_CODING_AGENT_DIR" {
				return c.agentDir
			}
			return ""
		},
		home: c.home, wd: c.home,
	}
	code = a.run(context.Background(), args)
	return out.String(), errb.String(), code
}

func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type promptOut struct {
	Sections []struct {
		Name, Source, Text string
		Order              float64
	}
	Text        string
	Diagnostics []diag.Diagnostic
}

func (c *cli) promptJSON(args ...string) promptOut {
	c.t.Helper()
	out, errs, code := c.run(append([]string{"prompt", "--json"}, args...)...)
	if code != 0 {
		c.t.Fatalf("pi prompt %v: exit %d: %s", args, code, errs)
	}
	var p promptOut
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		c.t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	return p
}

func sectionNames(p promptOut) string {
	var n []string
	for _, s := range p.Sections {
		n = append(n, s.Name)
	}
	return strings.Join(n, ",")
}

func TestPromptSectionsAndPlainEqualsJSON(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{nil, "preamble,tools,rules,docs,cwd"},
		{[]string{"--append-system-prompt", "A"}, "preamble,tools,rules,docs,addendum,cwd"},
		{[]string{"--system-prompt", "P"}, "preamble,cwd"},
		{[]string{"--no-tools"}, "preamble,tools,rules,docs,cwd"},
		{[]string{"--section", "team=Tabs only.", "--section", "rules=Mine."}, "preamble,tools,rules,docs,cwd,team"},
	}
	for _, tc := range cases {
		args := append([]string{"--cwd", proj}, tc.args...)
		p := c.promptJSON(args...)
		if got := sectionNames(p); got != tc.want {
			t.Errorf("%v: sections %s, want %s", tc.args, got, tc.want)
		}
		for _, s := range p.Sections {
			if s.Name == "preamble" {
				continue
			}
			if !strings.HasPrefix(s.Text, "<"+s.Name+">") && s.Source == "builtin" {
				t.Errorf("%v: %s not wrapped: %q", tc.args, s.Name, s.Text)
			}
		}
		plain, _, code := c.run(append([]string{"prompt"}, args...)...)
		if code != 0 || plain != p.Text+"\n" {
			t.Errorf("%v: plain output differs from JSON text", tc.args)
		}
	}
	p := c.promptJSON("--cwd", proj, "--system-prompt", "P")
	if p.Sections[0].Text != "P" || p.Sections[1].Text != "<cwd>\n"+proj+"\n</cwd>" {
		t.Errorf("custom prompt sections: %+v", p.Sections)
	}
}

func TestPromptUsageErrors(t *testing.T) {
	c := newCLI(t)
	for _, args := range [][]string{
		{"prompt", "--section", "Bad=x"},
		{"prompt", "--section", "preamble=x"},
		{"prompt", "--section", "noequals"},
		{"prompt", "--tools", "read", "--no-tools"},
		{"prompt", "--no-such-flag"},
		{"prompt", "extra-arg"},
		{"expand"},
	} {
		_, errs, code := c.run(args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if !strings.HasPrefix(errs, "pi: ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: want one line on stderr, got %q", args, errs)
		}
	}
	_, errs, code := c.run("prompt", "--cwd", filepath.Join(t.TempDir(), "missing"))
	if code != 1 || !strings.Contains(errs, "missing") {
		t.Errorf("missing cwd: exit %d %q", code, errs)
	}
}

func TestProjectTrustGatesSystemAndSkills(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, proj, map[string]string{
		"AGENTS.md":                  "Project rules.",
		".pi/SYSTEM.md":              "Project system prompt.",
		".pi/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Ship the app.\n---\nSteps.",
		".pi/prompts/review.md":      "Review $1 carefully.",
		".pi/settings.json":          `{"sections":{"team_rules":{"order":250,"text":"<team_rules>\nTabs.\n</team_rules>"}}}`,
	})
	untrusted := c.promptJSON("--cwd", proj)
	if strings.Contains(untrusted.Text, "Project system prompt.") || strings.Contains(untrusted.Text, "deploy") || strings.Contains(untrusted.Text, "Tabs.") {
		t.Fatal("project resources used without trust")
	}
	if !strings.Contains(untrusted.Text, "Project rules.") {
		t.Fatal("context files must load regardless of trust")
	}
	out, _, _ := c.run("resources", "--cwd", proj)
	if !strings.Contains(out, "SYSTEM.md") || !strings.Contains(out, "not trusted") {
		t.Fatalf("resources must say why project files were skipped:\n%s", out)
	}
	trusted := c.promptJSON("--cwd", proj, "--approve")
	if !strings.HasPrefix(trusted.Text, "Project system prompt.") {
		t.Fatalf("--approve must use .pi/SYSTEM.md:\n%s", trusted.Text)
	}
	if sectionNames(trusted) != "preamble,project_context,skills,cwd,team_rules" && sectionNames(trusted) != "preamble,team_rules,project_context,skills,cwd" {
		t.Fatalf("sections with trust: %s", sectionNames(trusted))
	}
	short, _, code := c.run("prompt", "--cwd", proj, "-a")
	if code != 0 || short != trusted.Text+"\n" {
		t.Fatal("-a differs from --approve")
	}
	noApprove := c.promptJSON("--cwd", proj, "-na")
	if strings.Contains(noApprove.Text, "Project system prompt.") {
		t.Fatal("-na must ignore project resources")
	}
	// A stored decision counts like --approve.
	writeFiles(t, c.agentDir, map[string]string{"trust.json": `{"projects":{"` + proj + `":true}}`})
	if stored := c.promptJSON("--cwd", proj); stored.Text != trusted.Text {
		t.Fatal("stored trust not honoured")
	}
}

func TestExpandTemplatesAndSkills(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"prompts/name.md":     "---\ndescription: greet\n---\nHello $1, then ${2:-nobody}; all: $@",
		"skills/pdf/SKILL.md": "---\nname: pdf\ndescription: PDF tools\n---\nUse pdftotext.",
	})
	out, errs, code := c.run("expand", "--cwd", dir, "--prompt-template", filepath.Join(dir, "prompts"), "--json", "--", `/name a "b c"`)
	if code != 0 {
		t.Fatal(errs)
	}
	var e struct{ Kind, Name, Text string }
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	if e.Kind != "template" || e.Name != "name" || e.Text != "Hello a, then b c; all: a b c" {
		t.Fatalf("%+v", e)
	}
	plain, _, _ := c.run("expand", "--cwd", dir, "--prompt-template", filepath.Join(dir, "prompts"), "--", `/name a "b c"`)
	if plain != e.Text+"\n" {
		t.Fatalf("plain %q", plain)
	}
	out, _, _ = c.run("expand", "--cwd", dir, "--skill", filepath.Join(dir, "skills"), "--json", "--", "/skill:pdf now")
	if !strings.Contains(out, `"kind": "skill"`) || !strings.Contains(out, "Use pdftotext.") {
		t.Fatal(out)
	}
	out, _, _ = c.run("expand", "--cwd", dir, "--json", "--", "/unknown x")
	if !strings.Contains(out, `"kind": "text"`) || !strings.Contains(out, `"text": "/unknown x"`) {
		t.Fatal(out)
	}
}
