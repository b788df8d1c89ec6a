package host

import (
	"context"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/internal/proccpu"
)

// The loop's per-call costs, deadline on, warm instance, no memo store:
// what a session pays for every tool call an extension looks at.

var benchBash = tool.Tool{Name: "bash", Source: tool.SourceBuiltin,
	Parameters: []byte(`{"type":"object","required":["command"],"properties":{"command":{"type":"string"},"timeout":{"type":"number"}}}`)}

// BenchmarkToolCallHook: policy-guard's tool_call policy on a harmless
// bash call, through the handler, the dispatcher and the session's loop
// hooks (argument encoding included), as the loop calls it.
func BenchmarkToolCallHook(b *testing.B) {
	ctx := context.Background()
	x := load(b, nil, examplePkg(b, "policy-guard"))[0]
	h := session.NewExtensionHooks(hooks.New([]hooks.Handler{Handler(x, nil)}), "/work/app")
	call := tool.Call{ID: "c1", Name: "bash", Args: map[string]any{"command": "go test ./... && git status"}}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		v, err := h.ToolCall(ctx, benchBash, call)
		if err != nil || v.Block {
			b.Fatal(v, err)
		}
	}
}

// BenchmarkToolCallHookMemo: the same with the on-disk memo store a run
// uses: policy-guard is pure, so every verdict is looked up and stored
// (the call history is part of the key, so within a session it misses).
func BenchmarkToolCallHookMemo(b *testing.B) {
	ctx := context.Background()
	x := load(b, nil, examplePkg(b, "policy-guard"))[0]
	store := NewDirStore(b.TempDir())
	h := session.NewExtensionHooks(hooks.New([]hooks.Handler{Handler(x, store)}), "/work/app")
	call := tool.Call{ID: "c1", Name: "bash", Args: map[string]any{"command": "go test ./... && git status"}}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		v, err := h.ToolCall(ctx, benchBash, call)
		if err != nil || v.Block {
			b.Fatal(v, err)
		}
	}
}

// BenchmarkToolCallHookRaw: the same call straight on the extension (event
// encode, guest decode and policy, envelope, host decode).
func BenchmarkToolCallHookRaw(b *testing.B) {
	ctx := context.Background()
	x := load(b, nil, examplePkg(b, "policy-guard"))[0]
	ev := abi.ToolCallEvent{ToolName: "bash", Source: "builtin", Input: []byte(`{"command":"go test ./... && git status"}`), Cwd: "/work/app"}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if r, err := x.ToolCall(ctx, ev, nil); err != nil || r.Block {
			b.Fatal(r, err)
		}
	}
}

// BenchmarkToolRoundTrip: one call of an extension tool built with the SDK
// that echoes an argument, as the loop runs it (arguments encoded,
// pi_tool, result decoded and checked).
func BenchmarkToolRoundTrip(b *testing.B) {
	ctx := context.Background()
	x := load(b, nil, pkg(b, "sdkguest", "name: sdk\nabi: 1\ntools:\n  - name: echo\n    description: Echoes text.\n    parameters: {type: object, properties: {text: {type: string}}}\nlimits: {timeoutMs: 1000}\n"))[0]
	t := x.Tools("/work/app")[0]
	call := tool.Call{ID: "c1", Name: t.Name, Args: map[string]any{"text": "hello"}}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		res, err := t.Run(ctx, call, nil)
		if err != nil || res.IsError || res.Text() != "hello" {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkToolResultRedact4K: redact-secrets on 4 KiB of ordinary command
// output (nothing to mask, the common case) and with one key in it.
func BenchmarkToolResultRedact4K(b *testing.B) {
	ctx := context.Background()
	x := load(b, nil, examplePkg(b, "redact-secrets"))[0]
	clean := strings.Repeat("ok  \tgithub.com/piwasm/pi/core/tool\t0.412s\n", 4096/43+1)[:4096]
	for _, c := range []struct{ name, text string }{
		{"clean", clean},
		{"one-key", clean[:2040] + "\nkey=AKIA" + "IOSFODNN7EXAMPLE\n" + clean[2066:]},
	} {
		b.Run(c.name, func(b *testing.B) {
			ev := abi.ToolResultEvent{ToolName: "bash", Source: "builtin", Input: []byte(`{"command":"make test"}`), Content: []abi.ContentPart{{Type: "text", Text: c.text}}}
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			defer reportCPU(b)()
			for b.Loop() {
				p, err := x.ToolResult(ctx, ev, nil)
				if err != nil || (p.Content != nil) != (c.name == "one-key") {
					b.Fatal(p, err)
				}
			}
		})
	}
}

// BenchmarkToolCallHookNoop: a tool_call hook that allows every call: the
// fixed cost of the hook, for comparison with a real policy.
func BenchmarkToolCallHookNoop(b *testing.B) {
	ctx := context.Background()
	x := load(b, nil, pkg(b, "sdkguest", "name: sdk\nabi: 1\nhooks: [tool_call]\nlimits: {timeoutMs: 1000}\n"))[0]
	ev := abi.ToolCallEvent{ToolName: "bash", Source: "builtin", Input: []byte(`{"command":"go test ./... && git status"}`), Cwd: "/work/app"}
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if r, err := x.ToolCall(ctx, ev, nil); err != nil || r.Block {
			b.Fatal(r, err)
		}
	}
}

// reportCPU adds the process's CPU time per operation to a benchmark's
// figures (cpu-µs/op); call the function it returns when the loop is done.
func reportCPU(b *testing.B) func() {
	start := proccpu.Used()
	return func() {
		if used := proccpu.Used() - start; used > 0 && b.N > 0 {
			b.ReportMetric(float64(used.Microseconds())/float64(b.N), "cpu-µs/op")
		}
	}
}
