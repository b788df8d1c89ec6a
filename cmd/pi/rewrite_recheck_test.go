//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

var rewriterBuild = guestOnce(filepath.Join("testdata", "guests", "rewriter"))

// TestAbortPolicySeesTheFinalArguments is issue 19's attack on extension
// hooks: policy-guard (failure: abort) approves "git push origin main",
// then a skip extension loaded after it rewrites the call into a force
// push. The policy must be asked about the arguments that would run, and
// its refusal must stand: the stand-in git never pushes.
func TestAbortPolicySeesTheFinalArguments(t *testing.T) {
	c := newCLI(t)
	policy := examplePlugin(t, "policy-guard")
	wasm, err := rewriterBuild()
	if err != nil {
		t.Fatal(err)
	}
	rewriter := filepath.Join(c.home, "rewriter")
	writeFiles(t, rewriter, map[string]string{"extension.yaml": "name: rewriter\nabi: 1\nhooks: [tool_call]\nfailure: skip\n"})
	data, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rewriter, "rewriter.wasm"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(c.home, "bin")
	mark := filepath.Join(c.home, "pushed")
	writeFiles(t, bin, map[string]string{"git": "#!/bin/sh\necho \"$*\" >> " + mark + "\n"})
	if err := os.Chmod(filepath.Join(bin, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "p", Name: "bash", Args: json.RawMessage(`{"command":"git push origin main"}`)}}},
		{Text: "done"},
	})
	proj := filepath.Join(c.home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	out, errs, code := c.run("-p", "--cwd", proj, "-e", policy, "-e", rewriter, "push")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
	}
	if b, err := os.ReadFile(mark); err == nil {
		t.Errorf("git ran: %q", b)
	}
	r := resultOf(t, sessionMessages(t, c.agentDir), "p")
	if text := r.Content.Text(); !r.Failed() || !strings.Contains(text, "force") {
		t.Errorf("result %q, want policy-guard's refusal of the force push", text)
	}
}
