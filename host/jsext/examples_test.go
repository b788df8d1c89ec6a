package jsext

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/tool"
)

// examplesDir is the established harness's examples/extensions, installed
// by bench/peer/install.sh under $PI_BENCH_CACHE (default <repo>/.cache/bench).
func examplesDir(t testing.TB) string {
	t.Helper()
	cache := os.Getenv("PI_BENCH_CACHE")
	if cache == "" {
		cache = filepath.Join("..", "..", ".cache", "bench")
	}
	dir := filepath.Join(cache, "peer", "node_modules", "@earendil-works", "pi-coding-agent", "examples", "extensions")
	if _, err := os.Stat(filepath.Join(dir, "hello.ts")); err != nil {
		t.Skipf("the established harness's examples are not installed (%s): run bench/peer/install.sh and set PI_BENCH_CACHE", dir)
	}
	return dir
}

func newRuntime(t *testing.T, cfg Config) *Runtime {
	t.Helper()
	if cfg.Cwd == "" {
		cfg.Cwd = t.TempDir()
	}
	if cfg.ProjectRoot == "" {
		cfg.ProjectRoot = cfg.Cwd
	}
	rt, err := NewRuntime(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

func TestInstalledExamples(t *testing.T) {
	dir := examplesDir(t)
	ctx := context.Background()
	rt := newRuntime(t, Config{Mode: "print"})
	load := func(name string) *Extension {
		t.Helper()
		e, _, err := rt.Load(ctx, filepath.Join(dir, name), Options{})
		if err != nil {
			t.Fatalf("load %s: %v", name, err)
		}
		return e
	}

	hello := load("hello.ts")
	tools := hello.Tools("/")
	if len(tools) != 1 || tools[0].Name != "hello" {
		t.Fatalf("hello.ts registered %+v", hello.Registry())
	}
	res, err := tools[0].Run(ctx, tool.Call{ID: "c1", Name: "hello", Args: map[string]any{"name": "Ada"}}, nil)
	if err != nil || res.Text() != "Hello, Ada!" || string(res.Details) != `{"greeted":"Ada"}` {
		t.Fatalf("hello tool: %+v, %v", res, err)
	}

	gate := load("permission-gate.ts")
	d := hooks.New([]hooks.Handler{gate, load("protected-paths.ts")})
	v, err := d.ToolCall(ctx, abi.ToolCallEvent{ToolName: "bash", Input: json.RawMessage(`{"command":"sudo rm -rf /"}`)}, "c2", nil)
	if err != nil || !v.Block || v.Extension != "permission-gate" || !strings.Contains(v.Reason, "no UI") {
		t.Fatalf("dangerous bash: %+v, %v", v, err)
	}
	v, err = d.ToolCall(ctx, abi.ToolCallEvent{ToolName: "write", Input: json.RawMessage(`{"path":"app/.env","content":"x"}`)}, "c3", nil)
	if err != nil || !v.Block || v.Extension != "protected-paths" || !strings.Contains(v.Reason, ".env") {
		t.Fatalf("protected write: %+v, %v", v, err)
	}
	v, err = d.ToolCall(ctx, abi.ToolCallEvent{ToolName: "bash", Input: json.RawMessage(`{"command":"ls"}`)}, "c4", nil)
	if err != nil || v.Block {
		t.Fatalf("harmless bash: %+v, %v", v, err)
	}

	todo := load("todo.ts")
	if cs := todo.Commands(); len(cs) != 1 || cs[0].Name != "todos" {
		t.Fatalf("todo commands: %+v", cs)
	}
	tt := todo.Tools("/")
	if len(tt) != 1 || tt[0].Name != "todo" {
		t.Fatalf("todo tools: %+v", tt)
	}
	if !strings.Contains(string(tt[0].Parameters), `"enum":["list","add","toggle","clear"]`) {
		t.Errorf("todo parameters: %s", tt[0].Parameters)
	}
	res, _ = tt[0].Run(ctx, tool.Call{ID: "c5", Args: map[string]any{"action": "add", "text": "ship it"}}, nil)
	if res.Text() != "Added todo #1: ship it" {
		t.Errorf("todo add: %q", res.Text())
	}
	res, _ = tt[0].Run(ctx, tool.Call{ID: "c6", Args: map[string]any{"action": "list"}}, nil)
	if res.Text() != "[ ] #1: ship it" {
		t.Errorf("todo list: %q", res.Text())
	}
	d.SessionStart(ctx, abi.SessionStartEvent{Reason: "startup"})
	if diags := d.Diagnostics(); len(diags) > 0 {
		t.Errorf("diagnostics: %+v", diags)
	}
}
