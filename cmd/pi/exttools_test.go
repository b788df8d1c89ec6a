package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/internal/scripted"
)

const glossaryFile = "# Glossary\n\n- **SLO**: service level objective, the target we page on\n- **PTO**: paid time off\n"

// A print-mode session with the scripted model and three example
// extensions: the model looks a term up with the glossary tool (an
// extension tool with a file grant), tries a recursive delete of a
// directory in the home folder (refused by policy-guard's tool_call
// policy, fail-closed) and prints a fake key (masked by redact-secrets'
// tool_result hook). The session goes on after the refusal.
func TestExtensionToolsAndPoliciesInASession(t *testing.T) {
	c := newCLI(t)
	fakeKey := "AKIA" + "IOSFODNN7EXAMPLE"
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "Looking it up.", Calls: []scripted.Call{
			{ID: "c1", Name: "glossary", Args: json.RawMessage(`{"term":"slo"}`)},
			{ID: "c2", Name: "bash", Args: json.RawMessage(`{"command":"rm -rf ~/projects"}`)},
		}},
		// The command prints the key without spelling it, so that only the
		// tool's output could carry it to the model.
		{Calls: []scripted.Call{{ID: "c3", Name: "bash", Args: json.RawMessage(`{"command":"printf 'key=AKIA%s' IOSFODNN7EXAMPLE"}`)}}},
		{Text: "SLO is the service level objective."},
	})
	proj := t.TempDir() // its .git makes it the project root, whatever lies above it
	writeFiles(t, proj, map[string]string{"docs/glossary.md": glossaryFile, ".git/HEAD": "ref: refs/heads/main\n"})
	keep := filepath.Join(c.home, "projects", "keep.txt")
	writeFiles(t, c.home, map[string]string{"projects/keep.txt": "precious"})

	out, errs, code := c.run("-p", "--cwd", proj, "--no-extensions",
		"-e", examplePlugin(t, "policy-guard"), "-e", examplePlugin(t, "team-glossary"), "-e", examplePlugin(t, "redact-secrets"),
		"--grant", "team-glossary", "what is an SLO?")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if out != "SLO is the service level objective.\n" {
		t.Errorf("stdout %q", out)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("the refused delete ran: %v", err)
	}

	// The request declared the extension's tool, from its manifest.
	first := string(s.Requests()[0])
	if !strings.Contains(first, `"name":"glossary"`) || !strings.Contains(first, "look up the team's terms") {
		t.Errorf("the first request does not declare the glossary tool: %.400s", first)
	}

	msgs := sessionMessages(t, c.agentDir)
	check := func(id string, isError bool, has ...string) {
		t.Helper()
		m := resultOf(t, msgs, id)
		text := textOf(m)
		if (m.IsError != nil && *m.IsError) != isError {
			t.Errorf("%s: isError %v, want %v (%s)", id, m.IsError != nil && *m.IsError, isError, text)
		}
		for _, h := range has {
			if !strings.Contains(text, h) {
				t.Errorf("%s: %q does not contain %q", id, text, h)
			}
		}
	}
	check("c1", false, "SLO: service level objective, the target we page on")
	check("c2", true, "extension:policy-guard", "outside the project")
	check("c3", false, "key=[redacted:aws-access-key]")
	if strings.Contains(textOf(resultOf(t, msgs, "c3")), fakeKey) {
		t.Error("the key reached the transcript")
	}
	for _, req := range s.Requests() {
		if strings.Contains(string(req), fakeKey) {
			t.Fatal("the key reached the model")
		}
	}

	// The refusal is recorded with its source.
	files, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl"))
	raw, _ := os.ReadFile(files[0])
	if !strings.Contains(string(raw), `"source":"extension:policy-guard"`) {
		t.Errorf("no decision recorded for the refused call")
	}
}

// A crashing policy blocks the call (fail closed) and says which
// extension; the session goes on.
func TestCrashingPolicyBlocksTheCall(t *testing.T) {
	c := newCLI(t)
	scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "bash", Args: json.RawMessage(`{"command":"ls"}`)}}},
		{Text: "ok"},
	})
	// policy-guard with an empty policy text: its config check fails on
	// every call, as a broken build would.
	src := examplePlugin(t, "policy-guard")
	dir := filepath.Join(t.TempDir(), "policy-guard")
	manifest, err := os.ReadFile(filepath.Join(src, "extension.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile(filepath.Join(src, "policy-guard.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(string(manifest), "hooks: [before_agent_start, system-prompt/assemble, tool_call]", "hooks: [tool_call]", 1)
	broken = strings.Replace(broken, "  text: |-", "  text: \"\"\n  unused: |-", 1)
	writeFiles(t, dir, map[string]string{"extension.yaml": broken, "policy-guard.wasm": string(wasm)})
	proj := t.TempDir()
	out, errs, code := c.run("-p", "--cwd", proj, "--no-extensions", "-e", dir, "list the files")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	m := resultOf(t, sessionMessages(t, c.agentDir), "c1")
	if m.IsError == nil || !*m.IsError || !strings.Contains(textOf(m), "policy-guard") || !strings.Contains(textOf(m), "abort") {
		t.Fatalf("a crashing abort policy must block the call, naming itself: %s", textOf(m))
	}
}

func TestExtInspectAndTestTools(t *testing.T) {
	c := newCLI(t)
	dir := examplePlugin(t, "team-glossary")
	out, errs, code := c.run("ext", "inspect", dir, "--json")
	if code != 0 {
		t.Fatalf("inspect: %d %s", code, errs)
	}
	var r struct {
		Tools []struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
			Hints      struct {
				ReadOnly bool `json:"readOnly"`
			} `json:"hints"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var schema bytes.Buffer
	if len(r.Tools) == 1 {
		_ = json.Compact(&schema, r.Tools[0].Parameters)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "glossary" || !r.Tools[0].Hints.ReadOnly || !strings.HasPrefix(schema.String(), `{"type":"object","required":["term"]`) {
		t.Fatalf("inspect tools: %s", out)
	}
	out, _, _ = c.run("ext", "inspect", dir)
	if !strings.Contains(out, "glossary(term) [read-only]: look up the team's terms") {
		t.Errorf("inspect text: %s", out)
	}

	proj := t.TempDir() // its .git makes it the project root, whatever lies above it
	writeFiles(t, proj, map[string]string{"docs/glossary.md": glossaryFile, ".git/HEAD": "ref: refs/heads/main\n"})
	out, errs, code = c.run("ext", "test", dir, "--cwd", proj, "--grant", "--tool", "glossary", "--args", `{"term":"pto"}`, "--json")
	if code != 0 {
		t.Fatalf("ext test --tool: %d %s", code, errs)
	}
	var tr struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
		Updates []string `json:"updates"`
	}
	if err := json.Unmarshal([]byte(out), &tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Result.Content) != 1 || tr.Result.Content[0].Text != "PTO: paid time off" || len(tr.Updates) != 1 {
		t.Fatalf("ext test --tool: %s", out)
	}
	// Without the grant the tool answers with an error result (exit 1).
	_, _, code = c.run("ext", "test", dir, "--cwd", proj, "--tool", "glossary", "--args", `{"term":"pto"}`)
	if code == 0 {
		t.Error("an error result must fail ext test")
	}
	// Arguments are checked against the declared schema.
	_, errs, code = c.run("ext", "test", dir, "--tool", "glossary", "--args", `{"word":"pto"}`)
	if code != 2 || !strings.Contains(errs, "term") {
		t.Errorf("bad arguments: %d %s", code, errs)
	}
	_, errs, code = c.run("ext", "test", dir, "--tool", "nope")
	if code != 2 || !strings.Contains(errs, "glossary") {
		t.Errorf("unknown tool: %d %s", code, errs)
	}
}

// A tool whose name is taken by a built-in is refused with a diagnostic
// naming both; the run goes on with the built-in.
func TestExtensionToolClashIsRefused(t *testing.T) {
	c := newCLI(t)
	src := examplePlugin(t, "team-glossary")
	dir := filepath.Join(t.TempDir(), "team-glossary")
	manifest, _ := os.ReadFile(filepath.Join(src, "extension.yaml"))
	schema, _ := os.ReadFile(filepath.Join(src, "glossary.schema.json"))
	wasm, _ := os.ReadFile(filepath.Join(src, "team-glossary.wasm"))
	writeFiles(t, dir, map[string]string{
		"extension.yaml":       strings.Replace(string(manifest), "  - name: glossary", "  - name: read", 1),
		"glossary.schema.json": string(schema), "team-glossary.wasm": string(wasm),
	})
	_, errs, code := c.run("prompt", "--cwd", t.TempDir(), "--no-extensions", "-e", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, `tool "read" from extension:team-glossary is already registered by builtin`) {
		t.Errorf("clash diagnostic: %s", errs)
	}
}

func textOf(m prompt.Message) string { return m.Content.Text() }

// Extension tools are on by default and follow -t like any tool.
func TestExtensionToolsFollowToolSelection(t *testing.T) {
	c := newCLI(t)
	dir := examplePlugin(t, "team-glossary")
	base := []string{"prompt", "--cwd", t.TempDir(), "--no-extensions", "-e", dir}
	for _, tc := range []struct {
		flags  []string
		listed bool
	}{
		{nil, true},
		{[]string{"-t", "read,glossary"}, true},
		{[]string{"-t", "read"}, false},
		{[]string{"-t", "-glossary"}, false},
		{[]string{"--no-builtin-tools"}, true},
	} {
		out, errs, code := c.run(append(append([]string{}, base...), tc.flags...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.flags, code, errs)
		}
		if got := strings.Contains(out, "look up the team's terms"); got != tc.listed {
			t.Errorf("%v: glossary listed %v, want %v", tc.flags, got, tc.listed)
		}
	}
}
