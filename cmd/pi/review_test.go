package main

import (
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestPrintModeErrorKeepsTheTextSoFar: a reply that ends in an error (here
// a stop reason pi does not know) still prints what the model said, with
// exit code 1 and the reason on stderr only.
func TestPrintModeErrorKeepsTheTextSoFar(t *testing.T) {
	for _, api := range []string{"openai-completions", "anthropic-messages"} {
		t.Run(api, func(t *testing.T) {
			c := newCLI(t)
			scriptedModel(t, c, api, []scripted.Reply{{Text: "half an answer", Stop: "banana"}})
			out, errs, code := c.run("-p", "--cwd", t.TempDir(), "hi")
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstderr: %s", code, errs)
			}
			if out != "half an answer\n" {
				t.Errorf("stdout %q, want the text so far", out)
			}
			if !strings.Contains(errs, "banana") || strings.Contains(errs, "half an answer") {
				t.Errorf("stderr %q: want the reason, and no reply text", errs)
			}
		})
	}
}
