package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtInitTypeScript: pi ext init --ts writes an extension with the
// API's type declarations, and pi ext test runs its tool_call hook in the
// JavaScript sandbox against the scaffold's event and one from stdin.
func TestExtInitTypeScript(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "guard")
	out := c.must("ext", "init", "guard", "--ts", "--dir", dir)
	for _, f := range []string{"index.ts", "pi-extension.d.ts", "package.json", "event.json"} {
		if !strings.Contains(out, filepath.Join(dir, f)) {
			t.Errorf("init did not write %s:\n%s", f, out)
		}
	}
	if !strings.Contains(readFile(t, filepath.Join(dir, "pi-extension.d.ts")), "export interface ExtensionAPI") {
		t.Error("the type declarations lack ExtensionAPI")
	}
	var r struct {
		Extension, Hook string
		Result          struct {
			Block  bool
			Reason string
		}
	}
	out = c.must("ext", "test", dir, "--hook", "tool_call", "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Hook != "tool_call" || !r.Result.Block || !strings.Contains(r.Result.Reason, "guard refuses") {
		t.Fatalf("the scaffold's event is not blocked:\n%s", out)
	}
	c.stdinText = `{"toolCallId":"2","toolName":"bash","source":"builtin","input":{"command":"ls"}}`
	out = c.must("ext", "test", dir, "--hook", "tool_call", "--event", "-", "--json")
	if strings.Contains(out, `"block": true`) {
		t.Fatalf("a harmless command was blocked:\n%s", out)
	}
	if _, errs, code := c.run("ext", "test", dir, "--hook", "tool_call", "--tool", "x"); code != exitUsage || !strings.Contains(errs, "TypeScript") {
		t.Errorf("--tool on a TypeScript extension: exit %d %s", code, errs)
	}
}
