package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
)

// The defects a differential run against Extism's own host found (issue
// 22), each checked on the kernel and through a guest that calls the
// kernel functions directly, as a stock PDK does.

func TestKernelZeroLengthBlocks(t *testing.T) {
	k := newKernel(1 << 10)
	empty := k.alloc(0)
	next := k.alloc(3)
	if empty != 0 {
		t.Fatalf("alloc(0) = %d, want 0", empty)
	}
	if next == empty {
		t.Fatalf("alloc(0) and the next block share offset %d", next)
	}
	k.free(empty)
	if n, ok := k.blocks[next]; !ok || n != 3 {
		t.Fatal("freeing the empty block freed the next one")
	}
	if off := k.write(nil); off != 0 {
		t.Fatalf("an empty value is block %d, want 0", off)
	}
	if b, ok := k.block(0); !ok || len(b) != 0 {
		t.Fatalf("block 0: %q %v", b, ok)
	}
	// Setting a variable to the empty block removes it, as in Extism.
	k.setVar(k.write([]byte("v")), k.write([]byte("old")))
	k.setVar(k.write([]byte("v")), k.alloc(0))
	if _, ok := k.vars["v"]; ok || k.varBytes != 0 {
		t.Fatalf("empty value stored: %q (%d bytes)", k.vars["v"], k.varBytes)
	}
}

func TestMergeConfig(t *testing.T) {
	for _, tc := range []struct {
		manifest, user, want string
		err                  bool
	}{
		{`{"a":1,"b":"x"}`, ``, `{"a":1,"b":"x"}`, false},
		{`{"a":1,"b":"x"}`, `{"b":"y","c":[1]}`, `{"a":1,"b":"y","c":[1]}`, false},
		{`{"a":1,"b":"x"}`, `{"a":null}`, `{"b":"x"}`, false},
		{`null`, `{"a":"z"}`, `{"a":"z"}`, false},
		{`[1,2]`, `{"a":"z"}`, `[1,2]`, true},
		{`{"a":1}`, `"text"`, `{"a":1}`, true},
	} {
		got, err := mergeConfig(json.RawMessage(tc.manifest), json.RawMessage(tc.user))
		if string(got) != tc.want || (err != nil) != tc.err {
			t.Errorf("merge(%s, %s) = %s, %v; want %s (error %v)", tc.manifest, tc.user, got, err, tc.want, tc.err)
		}
	}
	m := extismConfig(json.RawMessage(`{"s":"text","n":5,"o":{"k": [1, 2]},"z":null}`))
	if string(m["s"]) != "text" || string(m["n"]) != "5" || string(m["o"]) != `{"k":[1,2]}` || len(m) != 3 {
		t.Fatalf("extism config: %q", m)
	}
	if extismConfig(json.RawMessage(`[1]`)) != nil {
		t.Fatal("a list has no keys")
	}
}

// hostileIn loads the hostile guest in mode on a runtime of its own with
// the given user config and returns the section it answered.
func hostileSection(t *testing.T, mode string, user map[string]json.RawMessage, logs func(ext, level, msg string)) (string, error) {
	t.Helper()
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Config{AgentDir: agentDir, ProjectRoot: projectRoot, ExtensionConfig: user, Log: logs})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(ctx) })
	m := strings.Replace(hostileManifest, "mode: ok", "mode: "+mode+"\n  n: 7", 1)
	exts, diags := rt.Load(ctx, []string{pkg(t, "hostile", m)}, nil)
	for _, d := range diags {
		if d.Kind != DiagGrant {
			t.Fatalf("diagnostic: %s", d)
		}
	}
	res, err := exts[0].BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil)
	if err != nil {
		return "", err
	}
	if len(res.Ops) != 1 {
		t.Fatalf("ops %+v", res.Ops)
	}
	return res.Ops[0].Text, nil
}

func TestGuestErrorWinsOverOutput(t *testing.T) {
	text, err := hostileSection(t, "extism-error-zero", nil, nil)
	ce := callErr(t, err, "hostile", CauseGuestError)
	if text != "" || !strings.Contains(ce.Error(), "failed after answering") {
		t.Fatalf("section %q, error %v", text, err)
	}
}

func TestGuestConfigGet(t *testing.T) {
	text, err := hostileSection(t, "extism-config", nil, nil)
	if err != nil || text != "mode=extism-config n=7 missing=<absent>" {
		t.Fatalf("manifest config: %q %v", text, err)
	}
	// The user's settings replace keys and add others; the fetch key
	// "config" and config_get agree.
	user := map[string]json.RawMessage{"hostile": json.RawMessage(`{"n":"eight","missing":{"x":1}}`)}
	text, err = hostileSection(t, "extism-config", user, nil)
	if err != nil || text != `mode=extism-config n=eight missing={"x":1}` {
		t.Fatalf("merged config: %q %v", text, err)
	}
}

func TestGuestLogLevel(t *testing.T) {
	var sink logSink
	text, err := hostileSection(t, "extism-levels", nil, sink.add)
	if err != nil || text != "level=1" {
		t.Fatalf("get_log_level: %q %v", text, err)
	}
	// What get_log_level reports is what pi keeps: debug and above, and
	// trace dropped.
	if !sink.has("hostile debug at debug") || !sink.has("hostile info at info") || sink.has("at trace") {
		t.Fatalf("log lines: %q", sink.lines)
	}
}

func TestGuestZeroLengthBlocks(t *testing.T) {
	text, err := hostileSection(t, "extism-empty", nil, nil)
	if err != nil || text != `empty=0 same=false next="kept" var=0` {
		t.Fatalf("%q %v", text, err)
	}
}
