package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// peerExamples is the established harness's examples/extensions, installed
// by bench/peer/install.sh under $PI_BENCH_CACHE (default <repo>/.cache/bench).
func peerExamples(t *testing.T) string {
	t.Helper()
	cache := os.Getenv("PI_BENCH_CACHE")
	if cache == "" {
		cache = filepath.Join("..", "..", ".cache", "bench")
	}
	dir, _ := filepath.Abs(filepath.Join(cache, "peer", "node_modules", "@earendil-works", "pi-coding-agent", "examples", "extensions"))
	if _, err := os.Stat(filepath.Join(dir, "hello.ts")); err != nil {
		t.Skipf("the established harness's examples are not installed (%s): run bench/peer/install.sh and set PI_BENCH_CACHE", dir)
	}
	return dir
}

// Four of the established harness's example extensions, unchanged, in a
// print-mode session with the scripted model: hello.ts and todo.ts add
// tools the model calls, permission-gate.ts blocks a dangerous command
// (no one to ask in -p) and protected-paths.ts blocks a write to .env.
func TestTypeScriptExamplesInASession(t *testing.T) {
	ex := peerExamples(t)
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{
			{ID: "c1", Name: "hello", Args: json.RawMessage(`{"name":"Ada"}`)},
			{ID: "c2", Name: "bash", Args: json.RawMessage(`{"command":"sudo rm -rf build"}`)},
			{ID: "c3", Name: "write", Args: json.RawMessage(`{"path":".env","content":"SECRET=1"}`)},
			{ID: "c4", Name: "todo", Args: json.RawMessage(`{"action":"add","text":"write the docs"}`)},
		}},
		{Text: "All done."},
	})
	proj := t.TempDir()
	writeFiles(t, proj, map[string]string{".git/HEAD": "ref: refs/heads/main\n"})
	args := []string{"-p", "--cwd", proj, "--no-extensions"}
	for _, f := range []string{"hello.ts", "permission-gate.ts", "protected-paths.ts", "todo.ts"} {
		args = append(args, "-e", filepath.Join(ex, f))
	}
	out, errs, code := c.run(append(args, "greet Ada and note a todo")...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if out != "All done.\n" {
		t.Errorf("stdout %q (stderr %s)", out, errs)
	}
	first := string(s.Requests()[0])
	for _, name := range []string{`"name":"hello"`, `"name":"todo"`, "A simple greeting tool"} {
		if !strings.Contains(first, name) {
			t.Errorf("the first request does not declare %s", name)
		}
	}
	if _, err := os.Stat(filepath.Join(proj, ".env")); err == nil {
		t.Error("the protected write happened")
	}
	msgs := sessionMessages(t, c.agentDir)
	check := func(id string, isError bool, has string) {
		t.Helper()
		m := resultOf(t, msgs, id)
		text := textOf(m)
		if (m.IsError != nil && *m.IsError) != isError || !strings.Contains(text, has) {
			t.Errorf("%s: %q (isError %v), want %q (isError %v)", id, text, m.IsError != nil && *m.IsError, has, isError)
		}
	}
	check("c1", false, "Hello, Ada!")
	check("c2", true, "Dangerous command blocked (no UI for confirmation)")
	check("c3", true, `Path ".env" is protected`)
	check("c4", false, "Added todo #1: write the docs")
}

// A TypeScript extension's before_agent_start changes the system prompt,
// and the next extension's handler sees the changed prompt (the
// established harness chains them); pi prompt --explain names both.
func TestTypeScriptPromptChaining(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "ok"}})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"first.ts": `import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
export default function (pi: ExtensionAPI) {
	pi.on("before_agent_start", (event) => ({ systemPrompt: event.systemPrompt + "\nFIRST-LINE" }));
}
`,
		"second.ts": `export default function (pi) {
	pi.on("before_agent_start", async (event) => {
		if (!event.systemPrompt.includes("FIRST-LINE")) throw new Error("the first extension's prompt is missing");
		return { systemPrompt: event.systemPrompt + "\nSECOND-LINE (" + event.prompt + ")", message: { customType: "note", content: "from second", display: true } };
	});
}
`,
	})
	proj := t.TempDir()
	out, errs, code := c.run("-p", "--cwd", proj, "--no-extensions", "-e", filepath.Join(dir, "first.ts"), "-e", filepath.Join(dir, "second.ts"), "hi there")
	if code != 0 || out != "ok\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	req := string(s.Requests()[0])
	if !strings.Contains(req, `FIRST-LINE\nSECOND-LINE (hi there)`) {
		t.Errorf("the request's prompt lacks the chained lines: %.600s", req)
	}
	if !strings.Contains(req, "from second") {
		t.Errorf("the injected message is missing: %.600s", req)
	}
}
