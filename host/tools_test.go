package host

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
)

const hostileToolManifest = `name: hostile
abi: 1
hooks: [tool_call]
failure: abort
tools:
  - name: hostile_tool
    description: Does whatever its mode says.
    snippet: a tool that misbehaves on request
    parameters:
      type: object
      required: [mode]
      properties:
        mode: {type: string}
        url: {type: string}
limits:
  timeoutMs: 5000
  memoryMiB: 32
  outputKiB: 256
`

func runTool(t *testing.T, x *Extension, args map[string]any) (tool.Result, []string) {
	t.Helper()
	tools := x.Tools(t.TempDir())
	if len(tools) != 1 {
		t.Fatalf("tools: %+v", tools)
	}
	raw, _ := json.Marshal(args)
	prepared, err := tools[0].Prepare(raw)
	if err != nil {
		t.Fatal(err)
	}
	var updates []string
	res, err := tools[0].Run(context.Background(), tool.Call{ID: "c1", Name: "hostile_tool", Args: prepared}, func(p tool.Result) {
		updates = append(updates, p.Text())
	})
	if err != nil {
		t.Fatalf("a tool failure must be a result, not an error: %v", err)
	}
	return res, updates
}

func TestToolDeclaredFromManifest(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Config{AgentDir: t.TempDir(), ProjectRoot: t.TempDir(), Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	exts, diags := rt.Load(ctx, []string{pkg(t, "hostile", hostileToolManifest)}, nil)
	if len(exts) != 1 {
		t.Fatal(diags)
	}
	x := exts[0]
	if x.Compiled() {
		t.Fatal("declaring tools must not compile the module")
	}
	tools := x.Tools("/p")
	if len(tools) != 1 {
		t.Fatal(tools)
	}
	got := tools[0]
	want := `{"type":"object","required":["mode"],"properties":{"mode":{"type":"string"},"url":{"type":"string"}}}`
	if string(got.Parameters) != want {
		t.Errorf("schema must keep the manifest's key order:\n got %s\nwant %s", got.Parameters, want)
	}
	if got.Source != "extension:hostile" || got.Snippet != "a tool that misbehaves on request" || got.Mode != tool.Parallel {
		t.Errorf("tool: %+v", got)
	}
	if x.Compiled() {
		t.Fatal("still nothing may run before the first call")
	}
}

func TestHostileTools(t *testing.T) {
	x := load1(t, "hostile", hostileToolManifest)
	looper := load1(t, "hostile", strings.Replace(hostileToolManifest, "timeoutMs: 5000", "timeoutMs: 300", 1))
	good := load1(t, "sdkguest", "name: good\nabi: 1\nhooks: [before_agent_start]\n")
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()

	cases := []struct {
		mode    string
		target  *Extension
		want    []string
		retires bool
	}{
		{"loop", looper, []string{"hostile_tool", "hostile", "time limit of 300 ms", "restarted"}, true},
		{"alloc", x, []string{"hostile", "memory limit of 32 MiB", "restarted"}, true},
		{"panic", x, []string{"hostile", "trap", "hostile tool gives up", "restarted"}, true},
		{"garbage", x, []string{"hostile", "bad-envelope", "restarted"}, true},
		{"badcontent", x, []string{"hostile", "invalid-result", "video"}, false},
		{"big", x, []string{"hostile", "limit of 256 KiB", "restarted"}, true},
		{"net", x, []string{"hostile", "trap", "is not allowed", "restarted"}, true},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			before := c.target.Retired()
			res, _ := runTool(t, c.target, map[string]any{"mode": c.mode, "url": srv.URL})
			if !res.IsError {
				t.Fatalf("want an error result, got %+v", res)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Text(), w) {
					t.Errorf("result %q does not mention %q", res.Text(), w)
				}
			}
			if got := c.target.Retired() - before; (got == 1) != c.retires {
				t.Errorf("retired %d instances", got)
			}
			// The extension goes on working, and so do the others.
			if res, _ := runTool(t, c.target, map[string]any{"mode": "ok"}); res.IsError || res.Text() != "ok" {
				t.Fatalf("next call: %+v", res)
			}
			wellBehaved(t, good)
		})
	}
	if hits.Load() != 0 {
		t.Fatalf("an ungranted request reached the server %d times", hits.Load())
	}
}

func TestToolFilesAndStreaming(t *testing.T) {
	// The project holds secret.txt; the tool has no file grant.
	x := load1(t, "hostile", hostileToolManifest)
	res, _ := runTool(t, x, map[string]any{"mode": "passwd"})
	if res.IsError || res.Text() != "got " {
		t.Fatalf("a tool without grants must read nothing: %q", res.Text())
	}
	res, updates := runTool(t, x, map[string]any{"mode": "stream"})
	if res.Text() != "done" || strings.Join(updates, "|") != "half way|almost" {
		t.Fatalf("streaming: %q %q", res.Text(), updates)
	}
}

// A policy extension that crashes blocks the call; one that rewrites the
// arguments into an invalid shape is refused. Both go through the same
// path as a session: handler → dispatcher → the session's loop hooks.
func TestHostileToolCallHook(t *testing.T) {
	x := load1(t, "hostile", hostileToolManifest)
	d := hooks.New([]hooks.Handler{Handler(x, nil)})
	h := session.NewExtensionHooks(d, "/p")
	bash := tool.Tool{Name: "bash", Source: tool.SourceBuiltin,
		Parameters: json.RawMessage(`{"type":"object","required":["command"],"properties":{"command":{"type":"string"}}}`)}
	for _, c := range []struct{ command, want string }{
		{"crash", "policy crashed"},
		{"rewrite-bad", "invalid result"},
		{"rewrite-string", "must be a JSON object"},
	} {
		v, err := h.ToolCall(context.Background(), bash, tool.Call{ID: "c", Name: "bash", Args: map[string]any{"command": c.command}})
		if err == nil || v.Args != nil || !strings.Contains(err.Error(), "hostile") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: want the call refused naming the extension and %q, got %+v %v", c.command, c.want, v, err)
		}
	}
	if v, err := h.ToolCall(context.Background(), bash, tool.Call{ID: "c", Name: "bash", Args: map[string]any{"command": "ls"}}); err != nil || v.Block {
		t.Fatalf("a harmless call after the failures: %+v %v", v, err)
	}
}

func TestToolSchemaFromFile(t *testing.T) {
	m := strings.Replace(hostileToolManifest, `    parameters:
      type: object
      required: [mode]
      properties:
        mode: {type: string}
        url: {type: string}
`, "    parameters: hostile.schema.json\n", 1)
	dir := pkg(t, "hostile", m)
	schema := "{\n  \"type\": \"object\",\n  \"properties\": {\"mode\": {\"type\": \"string\"}}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "hostile.schema.json"), []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	p, ds := ReadPackage(dir)
	if p == nil {
		t.Fatal(ds)
	}
	if got := string(p.ToolSpecs()[0].Schema); got != `{"type":"object","properties":{"mode":{"type":"string"}}}` {
		t.Fatalf("schema: %s", got)
	}
	for _, bad := range []string{`[1]`, `{"type":"string"}`, `{nope`} {
		if err := os.WriteFile(filepath.Join(dir, "hostile.schema.json"), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		p, ds := ReadPackage(dir)
		if p != nil || len(ds) != 1 || !strings.Contains(ds[0].Message, "tools[0].parameters") || !strings.Contains(ds[0].Message, "hostile.schema.json") {
			t.Errorf("%s: want a diagnostic naming the field and the file, got %v", bad, ds)
		}
	}
	os.Remove(filepath.Join(dir, "hostile.schema.json"))
	if p, ds := ReadPackage(dir); p != nil || len(ds) == 0 {
		t.Error("a missing schema file must be a diagnostic")
	}
}
