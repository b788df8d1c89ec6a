package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// benchApp runs pi in-process against an isolated agent dir.
func benchApp(b *testing.B, agentDir string) *app {
	b.Helper()
	var out, errb bytes.Buffer
	return &app{
		stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string {
			if k == "PI_CODING_AGENT_DIR" {
				return agentDir
			}
			return ""
		},
		home: b.TempDir(), wd: b.TempDir(),
	}
}

// BenchmarkPromptDemo is `pi prompt` on the demo project with its five
// extensions, memo and compilation cache warm: the common case of a run in
// an unchanged project.
func BenchmarkPromptDemo(b *testing.B) {
	demo, _ := filepath.Abs(filepath.Join(repoRoot, "examples", "demo"))
	agentDir := b.TempDir()
	args := []string{"prompt", "--cwd", demo, "--approve", "--grant", "git-branch"}
	for _, name := range []string{"team-section", "policy-guard", "git-branch", "standup", "yes-no"} {
		examplePluginB(b, name)
	}
	if code := benchApp(b, agentDir).run(context.Background(), args); code != 0 {
		b.Fatalf("warm-up run failed with %d", code)
	}
	b.ResetTimer()
	for b.Loop() {
		if code := benchApp(b, agentDir).run(context.Background(), args); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkPromptDemoNoMemo is the same with memoisation off: every hook
// runs its guest (compiled modules come from the on-disk cache).
func BenchmarkPromptDemoNoMemo(b *testing.B) {
	demo, _ := filepath.Abs(filepath.Join(repoRoot, "examples", "demo"))
	agentDir := b.TempDir()
	args := []string{"prompt", "--cwd", demo, "--approve", "--grant", "git-branch", "--no-memo"}
	for _, name := range []string{"team-section", "policy-guard", "git-branch", "standup", "yes-no"} {
		examplePluginB(b, name)
	}
	if code := benchApp(b, agentDir).run(context.Background(), args); code != 0 {
		b.Fatalf("warm-up run failed with %d", code)
	}
	b.ResetTimer()
	for b.Loop() {
		if code := benchApp(b, agentDir).run(context.Background(), args); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
