package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
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

// demoArgs are `pi prompt` on the demo project with its five extensions.
func demoArgs(b *testing.B) []string {
	demo, _ := filepath.Abs(filepath.Join(repoRoot, "examples", "demo"))
	for _, name := range []string{"team-section", "policy-guard", "git-branch", "standup", "yes-no"} {
		examplePluginB(b, name)
	}
	return []string{"prompt", "--cwd", demo, "--approve", "--grant", "git-branch"}
}

// benchRuns runs pi once to warm the caches, then b.N times; args(i) gives
// the arguments of run i (0 is the warm-up).
func benchRuns(b *testing.B, args func(i int) []string) {
	agentDir := b.TempDir()
	if code := benchApp(b, agentDir).run(context.Background(), args(0)); code != 0 {
		b.Fatalf("warm-up run failed with %d", code)
	}
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		if code := benchApp(b, agentDir).run(context.Background(), args(i)); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkPromptDemo is `pi prompt` on the demo project, memo and
// compilation cache warm: the common case of a run in an unchanged project.
func BenchmarkPromptDemo(b *testing.B) {
	args := demoArgs(b)
	benchRuns(b, func(int) []string { return args })
}

// BenchmarkPromptDemoNoMemo is the same with memoisation off: every hook
// runs its guest (compiled modules come from the on-disk cache).
func BenchmarkPromptDemoNoMemo(b *testing.B) {
	args := append(demoArgs(b), "--no-memo")
	benchRuns(b, func(int) []string { return args })
}

// BenchmarkPromptDemoNewInput is BenchmarkPromptDemo with a different user
// input every run, as in real use.
func BenchmarkPromptDemoNewInput(b *testing.B) {
	args := demoArgs(b)
	benchRuns(b, func(i int) []string {
		return append(args[:len(args):len(args)], "--input", fmt.Sprintf("question %d", i))
	})
}

// BenchmarkPromptExtensions shows how `pi prompt` grows with the number of
// extensions (copies of team-section, each adding its own section), with the
// memo warm and with every guest running.
func BenchmarkPromptExtensions(b *testing.B) {
	src := examplePluginB(b, "team-section")
	module, err := os.ReadFile(filepath.Join(src, "team-section.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 4, 16} {
		root := b.TempDir()
		var dirs []string
		for i := range n {
			name := fmt.Sprintf("team-%02d", i)
			dir := filepath.Join(root, name)
			manifest := fmt.Sprintf("name: %s\nabi: 1\nhooks: [before_agent_start]\nconfig:\n  name: %s\n  order: %d\n  text: section %d\n", name, strings.ReplaceAll(name, "-", "_"), 250+i, i)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "extension.yaml"), []byte(manifest), 0o644)
			os.WriteFile(filepath.Join(dir, name+".wasm"), module, 0o644)
			dirs = append(dirs, dir)
		}
		for _, memo := range []bool{true, false} {
			label := fmt.Sprintf("%d/memo", n)
			if !memo {
				label = fmt.Sprintf("%d/no-memo", n)
			}
			b.Run(label, func(b *testing.B) {
				args := []string{"prompt", "--cwd", b.TempDir(), "--no-extensions"}
				for _, d := range dirs {
					args = append(args, "-e", d)
				}
				if !memo {
					args = append(args, "--no-memo")
				}
				benchRuns(b, func(int) []string { return args })
			})
		}
	}
}
