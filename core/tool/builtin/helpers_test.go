package builtin

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/tool"
)

var update = flag.Bool("update", false, "rewrite golden files")

// files writes a tree: names ending in "/" are directories; "->target"
// content makes a symlink.
func files(t testing.TB, root string, tree map[string]string) {
	t.Helper()
	for name, content := range tree {
		p := filepath.Join(root, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func toolByName(t testing.TB, env Env, name string) tool.Tool {
	t.Helper()
	for _, tl := range Tools(env) {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return tool.Tool{}
}

// call prepares args as the loop would and runs the tool.
func call(t testing.TB, env Env, name, args string) tool.Result {
	t.Helper()
	return callCtx(t, context.Background(), env, name, args, nil)
}

func callCtx(t testing.TB, ctx context.Context, env Env, name, args string, upd tool.Update) tool.Result {
	t.Helper()
	tl := toolByName(t, env, name)
	a, err := tl.Prepare(json.RawMessage(args))
	if err != nil {
		t.Fatalf("prepare %s %s: %v", name, args, err)
	}
	r, err := tl.Run(ctx, tool.Call{ID: "c1", Name: name, Args: a}, upd)
	if err != nil {
		t.Fatalf("run %s %s: %v", name, args, err)
	}
	return r
}

// render is a result as a golden file shows it: text parts, image parts
// summarised, the error flag, and details.
func render(r tool.Result, dir string) string {
	var b strings.Builder
	if r.IsError {
		b.WriteString("ERROR\n")
	}
	for _, p := range r.Content {
		switch p.Type {
		case "text":
			b.WriteString(p.Text)
		case "image":
			b.WriteString("[image " + p.MimeType + ", " + formatSize(len(p.Data)) + " base64]")
		}
		b.WriteString("\n")
	}
	if len(r.Details) > 0 {
		b.WriteString("--- details\n")
		b.Write(r.Details)
		b.WriteString("\n")
	}
	s := b.String()
	if dir != "" {
		s = strings.ReplaceAll(s, dir, "$DIR")
	}
	return s
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if string(want) != got {
		t.Fatalf("%s differs\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}

func newEnv(t testing.TB) (Env, string) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Env{Cwd: real, Home: real, TempDir: t.TempDir()}, real
}
