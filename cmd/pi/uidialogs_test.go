package main

import (
	"strings"
	"testing"
)

// In print mode nobody can answer: an extension's questions get their
// default answers at once (no choice, no text, not confirmed) and pi never
// waits.
func TestExtensionQuestionsTakeDefaultsInPrintMode(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", nil) // never asked: nothing is sent
	out, errs, code := c.run("-p", "--no-session", "--cwd", t.TempDir(), "-e", examplePlugin(t, "greeter"), "/greet")
	if code != 0 || !strings.Contains(out, "greet: no tone chosen, nothing sent") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("the model got %d requests", n)
	}
}
