package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/diag"
)

// A diagnostic with no file and no extension is listed without an empty
// field ("error: : building the prompt" before).
func TestListDiagnosticsNoEmptyField(t *testing.T) {
	var b bytes.Buffer
	listDiagnostics(&b, []diag.Diagnostic{
		{Kind: "error", Message: "building the prompt: boom"},
		{Kind: "warning", Path: "/p/x.md", Line: 3, Message: "bad"},
	})
	want := "  error: building the prompt: boom\n  warning: /p/x.md:3: bad\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// The trust line says the state once, whatever the reason's wording.
func TestTrustLineSaysStateOnce(t *testing.T) {
	cases := []struct {
		trusted bool
		reason  string
		want    string
	}{
		{false, "untrusted by a stored decision in /a/trust.json", "untrusted by a stored decision in /a/trust.json"},
		{true, "trusted by a stored decision in /a/trust.json", "trusted by a stored decision in /a/trust.json"},
		{false, "not trusted: x", "not trusted: x"},
		{false, "no stored decision", "not trusted: no stored decision"},
		{true, "approved for this run (--approve)", "trusted: approved for this run (--approve)"},
		{true, "", "trusted"},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		got := trustLine(c.trusted, c.reason)
		if got != c.want {
			t.Errorf("trustLine(%v, %q) = %q, want %q", c.trusted, c.reason, got, c.want)
		}
		if strings.Count(got, "trusted") > 1 {
			t.Errorf("doubled: %q", got)
		}
	}
}

// --grant NAME:KIND for a kind the manifest does not request is a usage
// error, not silently nothing.
func TestGrantKindNotRequestedIsAnError(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "foo")
	writeFiles(t, dir, map[string]string{
		"extension.yaml": "name: foo\nabi: 1\nhooks: [before_agent_start]\ncapabilities:\n  files: [a.txt]\n",
		"foo.wasm":       "\x00asm not really",
	})
	a := secReviewApp(c)
	_, err := a.grantsFor(&common{grants: []string{"foo:clock"}}, []string{dir})
	if err == nil || !strings.Contains(err.Error(), "does not request clock") {
		t.Fatalf("--grant foo:clock: %v", err)
	}
	if _, err := a.grantsFor(&common{grants: []string{"foo:files"}}, []string{dir}); err != nil {
		t.Fatalf("--grant foo:files: %v", err)
	}
}

// ext test --json answers in JSON on stdout even when it fails.
func TestExtTestJSONErrorsAreJSON(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(t.TempDir(), "foo")
	writeFiles(t, dir, map[string]string{"extension.yaml": "name: foo\nabi: 1\nhooks: [input]\n"})
	for _, args := range [][]string{
		{"ext", "test", dir, "--json"},                                    // usage: no --hook
		{"ext", "test", dir, "--hook", "input", "--event", "-", "--json"}, // failure: module not built
	} {
		out, _, code := c.run(args...)
		var v struct {
			Error string `json:"error"`
			Usage bool   `json:"usage"`
		}
		if code == 0 || json.Unmarshal([]byte(out), &v) != nil || v.Error == "" {
			t.Errorf("%v: exit %d, stdout %q is not a JSON error", args, code, out)
		}
	}
}
