package host

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
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
	rt, err := NewRuntime(ctx, Config{AgentDir: agentDir, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	// yes-no runs only for inputs starting with "?": it is queued first,
	// so had it been warmed it would be compiled before team-section.
	exts, diags := rt.Load(ctx, []string{examplePkg(t, "yes-no"), examplePkg(t, "team-section"), examplePkg(t, "standup")}, nil)
	if len(exts) != 3 {
		t.Fatal(diags)
	}
	rt.Prewarm(ctx)
	waitCompiled(t, exts[1])
	if exts[2].Compiled() {
		t.Fatal("a command-only extension was warmed")
	}
	if exts[0].Compiled() {
		t.Fatal("an extension with inputPrefixes was warmed")
	}
	// Ready means instantiated too: the call needs no new instance.
	if _, err := exts[1].BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil); err != nil {
		t.Fatal(err)
	}
}

func waitCompiled(t *testing.T, e *Extension) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !e.Compiled() {
		if time.Now().After(deadline) {
			t.Fatalf("%s never warmed", e.Name())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Without a memo store every per-turn extension has to run, so the first
// call starts the others in the background; with one, a single miss does
// not (it is usually an extension that reads the input).
func TestNoMemoPrewarmsAtFirstCall(t *testing.T) {
	ctx := context.Background()
	for _, memo := range []bool{false, true} {
		rt, err := NewRuntime(ctx, Config{AgentDir: agentDir, Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		exts, diags := rt.Load(ctx, []string{examplePkg(t, "team-section"), examplePkg(t, "git-branch")}, nil)
		if len(exts) != 2 {
			t.Fatal(diags)
		}
		var store hooks.MemoStore
		if memo {
			store = NewDirStore(t.TempDir())
		}
		if _, err := Handler(exts[0], store).BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil); err != nil {
			t.Fatal(err)
		}
		if !memo {
			waitCompiled(t, exts[1])
		} else if exts[1].Compiled() {
			t.Fatal("one miss warmed the others")
		}
		rt.Close(ctx)
	}
}
