package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Review: an extension whose manifest says failure: abort must stop the run
// when it cannot be loaded (RATIONALE: "An abort extension that cannot even
// be loaded stops the run"). abortOnFailedLoad re-reads each unloaded
// package with host.ReadPackage, which returns nil when the module cannot be
// read, and then `continue`s: a policy extension whose module was deleted,
// or replaced by something unreadable, is silently bypassed.
func TestReviewAbortExtensionWithMissingModuleStopsTheRun(t *testing.T) {
	c := newCLI(t)
	src := examplePlugin(t, "policy-guard")
	manifest, err := os.ReadFile(filepath.Join(src, "extension.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), "failure: abort") {
		t.Fatal("policy-guard is expected to be an abort extension")
	}
	for _, tc := range []struct {
		name  string
		setup func(dir string)
	}{
		// The module file is gone.
		{"deleted", func(dir string) {}},
		// The module path is a directory: os.ReadFile fails.
		{"directory", func(dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "policy-guard.wasm"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		// The module is a dangling symbolic link.
		{"dangling-link", func(dir string) {
			if err := os.Symlink(filepath.Join(dir, "nowhere.wasm"), filepath.Join(dir, "policy-guard.wasm")); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "policy-guard")
			writeFiles(t, dir, map[string]string{"extension.yaml": string(manifest)})
			tc.setup(dir)
			out, errs, code := c.run("prompt", "--cwd", t.TempDir(), "-e", dir)
			if code != 1 || !strings.Contains(errs, "policy-guard") || !strings.Contains(errs, "abort") {
				t.Fatalf("abort extension with an unreadable module was bypassed: exit %d\nstderr: %s\nprompt has policy: %v",
					code, errs, strings.Contains(out, "Never print secrets"))
			}
		})
	}
}

// The same bypass for an abort extension discovered in the agent dir (the
// usual place for a user's policy extension), not only for -e paths.
func TestReviewAbortExtensionInAgentDirWithMissingModuleStopsTheRun(t *testing.T) {
	c := newCLI(t)
	src := examplePlugin(t, "policy-guard")
	manifest, err := os.ReadFile(filepath.Join(src, "extension.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(c.agentDir, "extensions", "policy-guard")
	writeFiles(t, dir, map[string]string{"extension.yaml": string(manifest)})
	_, errs, code := c.run("prompt", "--cwd", t.TempDir())
	if code != 1 || !strings.Contains(errs, "policy-guard") {
		t.Fatalf("agent-dir abort extension without its module was bypassed: exit %d: %s", code, errs)
	}
}
