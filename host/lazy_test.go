package host

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/abi"
)

func TestLazyLoadCompilesOnFirstCall(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Config{AgentDir: t.TempDir(), ProjectRoot: t.TempDir(), Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	exts, diags := rt.Load(ctx, []string{examplePkg(t, "team-section")}, nil)
	if len(exts) != 1 || len(diags) != 0 {
		t.Fatalf("load: %v %v", exts, diags)
	}
	e := exts[0]
	if e.Compiled() {
		t.Fatal("lazy load compiled the module")
	}
	res, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "hi"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Compiled() || len(res.Ops) == 0 {
		t.Fatalf("first call: compiled=%v ops=%v", e.Compiled(), res.Ops)
	}
}

func TestLazyLoadStillChecksExports(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Config{AgentDir: t.TempDir(), Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	// A module exporting nothing must fail at load, before any code runs.
	dir := pkg(t, "nothing", "name: nothing\nabi: 1\nhooks: [before_agent_start]\n")
	exts, diags := rt.Load(ctx, []string{dir}, nil)
	if len(exts) != 0 || len(diags) == 0 || diags[0].Kind != DiagExports {
		t.Fatalf("want an exports diagnostic, got %v %+v", exts, diags)
	}
}

func TestDigestCacheFollowsTheFile(t *testing.T) {
	dir := examplePkg(t, "team-section")
	cache := openDigestCache(t.TempDir())
	p1, ds := readPackage(dir, cache)
	if p1 == nil || p1.cached {
		t.Fatalf("first read: %v %v", p1, ds)
	}
	p2, _ := readPackage(dir, cache)
	if !p2.cached || p2.SHA256 != p1.SHA256 || len(p2.exports) == 0 {
		t.Fatalf("second read not served from the cache: %+v", p2)
	}
	// Rewrite the module in place with the same size: the identity changes
	// (change time), so the cache must not answer.
	mod := p1.ModulePath
	b, err := os.ReadFile(mod)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(mod) // it may be a hard link to the shared fixture
	b[len(b)-1] ^= 0xff
	if err := os.WriteFile(mod, b, 0o644); err != nil {
		t.Fatal(err)
	}
	p3, _ := readPackage(dir, cache)
	if p3.cached || p3.SHA256 == p1.SHA256 {
		t.Fatal("stale digest served after the module changed")
	}
	// A package served from the cache refuses to compile bytes that no
	// longer match its SHA-256.
	p2.wasm = nil
	if _, err := p2.moduleBytes(); err == nil || !strings.Contains(err.Error(), "changed on disk") {
		t.Fatalf("want a changed-on-disk error, got %v", err)
	}
}

func TestPrewarmReadiesPerTurnExtensionsOnly(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, Config{AgentDir: t.TempDir(), Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	exts, diags := rt.Load(ctx, []string{examplePkg(t, "team-section"), examplePkg(t, "standup")}, nil)
	if len(exts) != 2 {
		t.Fatal(diags)
	}
	rt.Prewarm(ctx)
	deadline := time.Now().Add(60 * time.Second)
	for !exts[0].Compiled() {
		if time.Now().After(deadline) {
			t.Fatal("team-section never warmed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if exts[1].Compiled() {
		t.Fatal("a command-only extension was warmed")
	}
	// Ready means instantiated too: the call needs no new instance.
	if _, err := exts[0].BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil); err != nil {
		t.Fatal(err)
	}
}
