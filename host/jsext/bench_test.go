package jsext

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/piwasm/pi/abi"
)

// BenchmarkToolCallHook is one tool_call dispatch to permission-gate.ts
// (a harmless bash command: the handler runs and lets it through).
func BenchmarkToolCallHook(b *testing.B) {
	dir := examplesDir(b)
	rt, err := NewRuntime(context.Background(), Config{Mode: "print", Cwd: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close(context.Background())
	e, _, err := rt.Load(context.Background(), filepath.Join(dir, "permission-gate.ts"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	ev := abi.ToolCallEvent{ToolName: "bash", Input: json.RawMessage(`{"command":"ls -la"}`)}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if r, err := e.ToolCall(ctx, ev, nil); err != nil || r.Block {
			b.Fatal(r, err)
		}
	}
}

// TestMemoryPerExtension reports each loaded example's engine heap and
// linear memory (go test -v -run TestMemoryPerExtension).
func TestMemoryPerExtension(t *testing.T) {
	dir := examplesDir(t)
	rt := newRuntime(t, Config{Mode: "print"})
	for _, f := range []string{"hello.ts", "permission-gate.ts", "protected-paths.ts", "todo.ts"} {
		e, _, err := rt.Load(context.Background(), filepath.Join(dir, f), Options{})
		if err != nil {
			t.Fatal(err)
		}
		heap, linear := e.MemoryUsage(context.Background())
		t.Logf("%-20s heap %6.0f KiB  linear memory %6.0f KiB", f, float64(heap)/1024, float64(linear)/1024)
		if linear > 3<<20 {
			t.Errorf("%s: %d bytes of linear memory, over 3 MiB", f, linear)
		}
	}
}
