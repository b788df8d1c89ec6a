package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/diag"
)

// hostileBuild builds host/testdata/guests/hostile once for this package.
var hostileBuild = guestOnce(filepath.Join(repoRoot, "host", "testdata", "guests", "hostile"))

func hostileModule(t *testing.T) string {
	t.Helper()
	out, err := hostileBuild()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hostilePackage writes a package running the hostile guest in one mode.
func hostilePackage(t *testing.T, mode, failure string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hostile")
	manifest := "name: hostile\nabi: 1\nhooks: [before_agent_start]\nfailure: " + failure + "\nconfig:\n  mode: " + mode + "\n"
	if mode != "loop" {
		// Room to hit the intended limit (memory, output size, …) before
		// the deadline, even on a busy machine.
		manifest += "limits:\n  timeoutMs: 5000\n"
	}
	writeFiles(t, dir, map[string]string{"extension.yaml": manifest})
	data, err := os.ReadFile(hostileModule(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hostile.wasm"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A hostile extension next to a well-behaved one: with skip the prompt is
// exactly what the well-behaved one alone gives and a diagnostic names the
// hostile one and the cause; with abort the run stops naming it.
func TestHostileExtensionsLeaveThePromptAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hostile guests")
	}
	c := newCLI(t)
	proj := t.TempDir()
	team := examplePlugin(t, "team-section")
	baseline, errs, code := c.run("prompt", "--cwd", proj, "-e", team)
	if code != 0 {
		t.Fatal(errs)
	}
	for _, tc := range []struct{ mode, cause string }{
		{"loop", "timeout"},
		{"alloc", "memory"},
		{"panic", "trap"},
		{"badjson", "bad-envelope"},
		{"big", "output-too-large"},
		{"net", "trap"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			h := hostilePackage(t, tc.mode, "skip")
			out, _, code := c.run("prompt", "--cwd", proj, "-e", h, "-e", team, "--json")
			if code != 0 {
				t.Fatalf("skip policy: exit %d", code)
			}
			var p struct {
				Text        string
				Diagnostics []diag.Diagnostic
			}
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatal(err)
			}
			if p.Text+"\n" != baseline {
				t.Fatal("a failing extension changed the prompt")
			}
			found := false
			for _, d := range p.Diagnostics {
				found = found || (d.Extension == "hostile" && strings.Contains(d.Message, tc.cause))
			}
			if !found {
				t.Fatalf("no diagnostic naming hostile and %s: %+v", tc.cause, p.Diagnostics)
			}
			_, errs, code := c.run("prompt", "--cwd", proj, "-e", hostilePackage(t, tc.mode, "abort"), "-e", team)
			if code != 1 || !strings.Contains(errs, "hostile") || !strings.Contains(errs, tc.cause) {
				t.Fatalf("abort policy: exit %d: %s", code, errs)
			}
		})
	}
}
