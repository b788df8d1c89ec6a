package host

import (
	"context"
	"testing"

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
