package host

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/internal/proccpu"
)

// All benchmarks run with the per-call deadline on (it always is).

// benchManifest keeps the deadline on but at 1 s: the shared 2-core test
// machines are often loaded enough to delay a single call past 100 ms.
const benchManifest = sdkManifest + "limits: {timeoutMs: 1000}\n"

func benchExt(b *testing.B) *Extension {
	b.Helper()
	return load(b, nil, pkg(b, "sdkguest", benchManifest))[0]
}

// BenchmarkCallOverhead: one before_agent_start round trip through a guest
// that does nothing (event encode, one-copy fetch, guest decode, envelope,
// one-copy output, host decode).
func BenchmarkCallOverhead(b *testing.B) {
	ctx := context.Background()
	e := benchExt(b)
	ev := abi.BeforeAgentStartEvent{}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.BeforeAgentStart(ctx, ev, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInputOverhead: the smallest hook (input, continue).
func BenchmarkInputOverhead(b *testing.B) {
	ctx := context.Background()
	e := benchExt(b)
	ev := abi.InputEvent{Text: "hello"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Input(ctx, ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAssembleEdit8K: an assemble hook that edits one section of a
// realistic 8 KiB prompt, including applying the ops on the host.
func BenchmarkAssembleEdit8K(b *testing.B) {
	ctx := context.Background()
	e := benchExt(b)
	ev := realisticAssembly()
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.Assemble(ctx, ev)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := abi.ApplyAssemble(ev, res.Ops); err != nil || len(res.Ops) != 1 {
			b.Fatal(err)
		}
	}
}

// BenchmarkFetch64K: a call whose guest fetches a 64 KiB value with
// pi_fetch (one copy into guest memory).
func BenchmarkFetch64K(b *testing.B) {
	ctx := context.Background()
	e := benchExt(b)
	blob := make([]byte, 64<<10)
	fetch := FetchMap(map[string][]byte{"blob": blob})
	ev := abi.BeforeAgentStartEvent{Input: "blob"}
	b.SetBytes(int64(len(blob)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.BeforeAgentStart(ctx, ev, fetch)
		if err != nil || res.Message != "65536" {
			b.Fatal(res, err)
		}
	}
}

// BenchmarkCompileCold: loading a module with an empty compilation cache
// (compile, instantiate, runtime init).
func BenchmarkCompileCold(b *testing.B) {
	ctx := context.Background()
	dir := pkg(b, "sdkguest", sdkManifest)
	for b.Loop() {
		b.StopTimer()
		agent, err := os.MkdirTemp("", "pi-bench-")
		if err != nil {
			b.Fatal(err)
		}
		rt, err := NewRuntime(ctx, Config{AgentDir: agent})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		exts, diags := rt.Load(ctx, []string{dir}, nil)
		b.StopTimer()
		if len(exts) != 1 {
			b.Fatal(diags)
		}
		rt.Close(ctx)
		os.RemoveAll(agent)
		b.StartTimer()
	}
}

// BenchmarkLoadFromCache: loading a module whose compilation is in the
// on-disk cache, in a fresh runtime (what a new pi process pays).
func BenchmarkLoadFromCache(b *testing.B) {
	ctx := context.Background()
	dir := pkg(b, "sdkguest", sdkManifest)
	for b.Loop() {
		rt, err := NewRuntime(ctx, Config{AgentDir: agentDir})
		if err != nil {
			b.Fatal(err)
		}
		exts, diags := rt.Load(ctx, []string{dir}, nil)
		if len(exts) != 1 {
			b.Fatal(diags)
		}
		rt.Close(ctx)
	}
}

// BenchmarkInstantiate: a fresh instance from the compiled module, with its
// Go runtime initialized (what replacing a retired instance costs).
func BenchmarkInstantiate(b *testing.B) {
	ctx := context.Background()
	e := benchExt(b)
	for b.Loop() {
		inst, err := e.newInstance(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := inst.abiVersion(ctx, e.initTimeout()); err != nil {
			b.Fatal(err)
		}
		inst.close()
	}
}

// BenchmarkWarmInstanceHeap reports the host heap and the guest linear
// memory of one warm instance (after one call).
func BenchmarkWarmInstanceHeap(b *testing.B) {
	ctx := context.Background()
	e := benchExt(b)
	const n = 8
	var hostBytes, guestBytes float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		insts := make([]*instance, n)
		for i := range insts {
			inst, err := e.newInstance(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := inst.abiVersion(ctx, e.initTimeout()); err != nil {
				b.Fatal(err)
			}
			insts[i] = inst
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		hostBytes = float64(after.HeapAlloc-before.HeapAlloc) / n
		guestBytes = float64(insts[0].mem.Size())
		for _, inst := range insts {
			inst.close()
		}
	}
	b.ReportMetric(hostBytes/(1<<20), "host-MiB/instance")
	b.ReportMetric(guestBytes/(1<<20), "guest-MiB/instance")
}

// BenchmarkLoad4FromCache: a fresh runtime loading four example packages
// whose compilations are cached (the extension part of a cold `pi prompt`).
func BenchmarkLoad4FromCache(b *testing.B) {
	ctx := context.Background()
	var dirs []string
	for _, n := range []string{"team-section", "policy-guard", "yes-no", "standup"} {
		dirs = append(dirs, examplePkg(b, n))
	}
	warm, _ := NewRuntime(ctx, Config{AgentDir: agentDir})
	exts, diags := warm.Load(ctx, dirs, nil)
	if len(exts) != 4 {
		b.Fatal(diags)
	}
	warm.Close(ctx)
	start := proccpu.Used()
	for b.Loop() {
		rt, err := NewRuntime(ctx, Config{AgentDir: agentDir})
		if err != nil {
			b.Fatal(err)
		}
		exts, diags := rt.Load(ctx, dirs, nil)
		if len(exts) != 4 {
			b.Fatal(diags)
		}
		rt.Close(ctx)
	}
	// CPU time says more than the wall clock on a shared machine.
	if used := proccpu.Used() - start; used > 0 && b.N > 0 {
		b.ReportMetric(float64(used.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkLanguages compares the Go example (pi's SDK, on the fast path)
// with its AssemblyScript twin (the stock Extism PDK: Extism input and
// output, pi_fetch_block): compiling with an empty cache plus the first
// call, then a warm before_agent_start call.
func BenchmarkLanguages(b *testing.B) {
	ctx := context.Background()
	for _, name := range teamSections {
		dir := examplePkg(b, name)
		b.Run(name+"/first-compile", func(b *testing.B) {
			for b.Loop() {
				rt, err := NewRuntime(ctx, Config{}) // in-memory cache: empty every time
				if err != nil {
					b.Fatal(err)
				}
				exts, diags := rt.Load(ctx, []string{dir}, nil)
				if len(exts) != 1 {
					b.Fatal(diags)
				}
				if _, err := exts[0].BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil); err != nil {
					b.Fatal(err)
				}
				rt.Close(ctx)
			}
		})
		b.Run(name+"/warm-call", func(b *testing.B) {
			e := load(b, nil, dir)[0]
			for b.Loop() {
				if _, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "hi"}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
