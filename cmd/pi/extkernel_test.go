package main

import (
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// A policy extension built on a stock PDK that fails by setting Extism's
// error yet returns 0 (with an answer in its output) stops a print-mode
// run before any request goes out; with skip the run goes on without its
// answer.
func TestExtismErrorWithZeroStopsAbortRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a guest")
	}
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "should not be asked"}})
	proj := t.TempDir()
	_, errs, code := c.run("-p", "--no-session", "--no-memo", "--cwd", proj, "-e", hostilePackage(t, "extism-error-zero", "abort"), "hello")
	if code == 0 || !strings.Contains(errs, "hostile") || !strings.Contains(errs, "failed after answering") {
		t.Fatalf("abort: exit %d: %s", code, errs)
	}
	if n := s.Served(); n != 0 {
		t.Fatalf("the model was asked %d times after the policy failed", n)
	}
	out, errs, code := c.run("prompt", "--cwd", proj, "-e", hostilePackage(t, "extism-error-zero", "skip"))
	if code != 0 || strings.Contains(out, "applied anyway") || !strings.Contains(errs, "guest-error") {
		t.Fatalf("skip: exit %d: %s\n%s", code, errs, out)
	}
}

// settings.json's extensionConfig reaches a guest through Extism's own
// config_get, merged over the manifest's config, and a name that matches
// no extension is reported.
func TestExtensionConfigFromSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a guest")
	}
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"extensionConfig": {"hostile": {"n": 42, "missing": "given"}, "hostlie": {"n": 1}}}`})
	p := c.promptJSON("--cwd", proj, "-e", hostilePackage(t, "extism-config", "abort"))
	var got string
	for _, sec := range p.Sections {
		if sec.Name == "hostile" {
			got = sec.Text
		}
	}
	if got != "mode=extism-config n=42 missing=given" {
		t.Fatalf("the guest read %q", got)
	}
	reported := false
	for _, d := range p.Diagnostics {
		reported = reported || d.Kind == "config" && d.Extension == "hostlie"
	}
	if !reported {
		t.Fatalf("the misspelt name is not reported: %+v", p.Diagnostics)
	}
}
