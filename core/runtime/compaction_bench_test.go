package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/compact"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/internal/proccpu"
)

// sizeModel reports a prompt size equal to the request's own size
// (characters / 4), as a provider would, so compaction starts at the real
// threshold; it answers summaries with a fixed text.
func sizeModel(_ context.Context, req provider.Request, on func(provider.StreamEvent)) (provider.Response, error) {
	chars := 0
	for _, m := range req.Messages {
		chars += len(m.Content)
		for _, p := range m.Parts {
			chars += len(p.Text)
		}
	}
	if len(req.Tools) == 0 && len(req.Messages) == 2 {
		return provider.Response{Text: "## Goal\n" + strings.Repeat("keep going with the work; ", 20), StopReason: "stop", Usage: provider.Usage{InputTokens: chars / 4, OutputTokens: 150}}, nil
	}
	reply := strings.Repeat("Here is what I found and what I changed. ", 20)
	on(provider.StreamEvent{Type: "text_delta", Delta: reply})
	return provider.Response{Text: reply, StopReason: "stop", Usage: provider.Usage{InputTokens: chars / 4, OutputTokens: len(reply) / 4}}, nil
}

// longCost is what a long session measured.
type longCost struct {
	heap                           map[int]uint64 // live heap after turn n (after a GC)
	rss                            map[int]int    // the process's peak resident set by turn n, KiB
	turn                           map[int]turnCost
	compact                        turnCost // one compaction's own cost on average (the model's left out)
	compactions, entries, inMemory int
}

// turnCost is the average cost of one turn (or compaction): wall and
// process CPU time, and objects and bytes allocated.
type turnCost struct {
	wall, cpu      time.Duration
	objects, bytes uint64
}

// longTurnWindows end the ten-turn windows whose cost is measured.
var longTurnWindows = []int{10, 100, 1000}

// longSession runs a 1,000-turn session (a 400-character prompt and an
// 800-character reply per turn) against a 16,000-token window with
// automatic compaction, written to a session file, and measures it: the
// live heap and peak resident set after turns 100 and 1,000, the cost of
// a turn around turns 10, 100 and 1,000, and a compaction's own cost (from
// compaction_start to compaction_end, less the time in the model).
func longSession(tb testing.TB) longCost {
	tb.Helper()
	f := newFixture(tb)
	tr, err := session.Create(filepath.Join(tb.TempDir(), "s.jsonl"), session.Header{ID: "bench", Cwd: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	defer tr.Close()
	if err := f.rt.Switch(tr); err != nil {
		tb.Fatal(err)
	}
	var inModel time.Duration // time in summary requests
	f.rt.runner.Model = func(ctx context.Context, req provider.Request, on func(provider.StreamEvent)) (provider.Response, error) {
		if len(req.Tools) == 0 && len(req.Messages) == 2 {
			start := time.Now()
			defer func() { inModel += time.Since(start) }()
		}
		return sizeModel(ctx, req, on)
	}
	f.rt.runner.Route.ContextWindow = 16000
	f.rt.SetCompaction(compact.Settings{Enabled: true, ReserveTokens: 2000, KeepRecentTokens: 3000}, nil)
	out := longCost{heap: map[int]uint64{}, rss: map[int]int{}, turn: map[int]turnCost{}}
	var ms runtime.MemStats
	sample := func() (time.Time, time.Duration, uint64, uint64) {
		runtime.ReadMemStats(&ms)
		return time.Now(), proccpu.Used(), ms.Mallocs, ms.TotalAlloc
	}
	var cStart time.Time
	var cCPU, cModel time.Duration
	var cObjs, cBytes uint64
	f.rt.Subscribe(func(e agent.Event) {
		switch e.Type {
		case agent.CompactionStart:
			cStart, cCPU, cObjs, cBytes = sample()
			cModel = inModel
		case agent.CompactionEnd:
			if e.Compaction == nil {
				return
			}
			now, cpu, objs, bytes := sample()
			model := inModel - cModel
			out.compactions++
			out.compact.wall += now.Sub(cStart) - model
			out.compact.cpu += cpu - cCPU - model
			out.compact.objects += objs - cObjs
			out.compact.bytes += bytes - cBytes
		}
	})
	prompt := strings.Repeat("Please look at the next part of the code base. ", 8)
	const window = 10
	var wStart time.Time
	var wCPU time.Duration
	var wObjs, wBytes uint64
	for turn := 1; turn <= 1000; turn++ {
		for _, end := range longTurnWindows {
			if turn == end-window+1 {
				wStart, wCPU, wObjs, wBytes = sample()
			}
		}
		if _, err := f.rt.Run(session.Input{Text: fmt.Sprintf("%d: %s", turn, prompt)}); err != nil {
			tb.Fatal(err)
		}
		// The fixture's own event log is not the session's.
		f.mu.Lock()
		f.events = nil
		f.mu.Unlock()
		for _, end := range longTurnWindows {
			if turn == end {
				now, cpu, objs, bytes := sample()
				out.turn[end] = turnCost{wall: now.Sub(wStart) / window, cpu: (cpu - wCPU) / window, objects: (objs - wObjs) / window, bytes: (bytes - wBytes) / window}
			}
		}
		if turn == 100 || turn == 1000 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			out.heap[turn] = ms.HeapAlloc
			out.rss[turn] = peakRSSKB()
		}
	}
	if n := uint64(out.compactions); n > 0 {
		c := &out.compact
		c.wall, c.cpu = c.wall/time.Duration(n), c.cpu/time.Duration(n)
		c.objects, c.bytes = c.objects/n, c.bytes/n
	}
	out.entries, out.inMemory = tr.Len(), tr.InMemory()
	return out
}

// BenchmarkLongSessionWithCompaction reports what longSession measured:
// the live heap and peak RSS after turns 100 and 1,000 and their ratios,
// the cost of a turn around turns 10, 100 and 1,000 (wall and CPU time,
// allocations), a compaction's own cost, how many compactions ran, and how
// many of the session's entries were still in memory at the end.
func BenchmarkLongSessionWithCompaction(b *testing.B) {
	for i := 0; i < b.N; i++ {
		c := longSession(b)
		b.ReportMetric(float64(c.heap[100])/1024, "heapKB@100")
		b.ReportMetric(float64(c.heap[1000])/1024, "heapKB@1000")
		b.ReportMetric(float64(c.heap[1000])/float64(c.heap[100]), "heap-ratio")
		if c.rss[100] > 0 {
			// The whole process's peak, as the target is put:
			// the session's growth on top of what the program needs.
			b.ReportMetric(float64(c.rss[100]), "peakRSSKB@100")
			b.ReportMetric(float64(c.rss[1000]), "peakRSSKB@1000")
			b.ReportMetric(float64(c.rss[1000])/float64(c.rss[100]), "peakRSS-ratio")
		}
		for _, n := range longTurnWindows {
			t := c.turn[n]
			b.ReportMetric(float64(t.wall.Microseconds()), fmt.Sprintf("µs/turn@%d", n))
			b.ReportMetric(float64(t.cpu.Microseconds()), fmt.Sprintf("cpu-µs/turn@%d", n))
			b.ReportMetric(float64(t.objects), fmt.Sprintf("allocs/turn@%d", n))
			b.ReportMetric(float64(t.bytes)/1024, fmt.Sprintf("allocKB/turn@%d", n))
		}
		b.ReportMetric(float64(c.compact.wall.Microseconds()), "µs/compaction")
		b.ReportMetric(float64(c.compact.cpu.Microseconds()), "cpu-µs/compaction")
		b.ReportMetric(float64(c.compact.objects), "allocs/compaction")
		b.ReportMetric(float64(c.compact.bytes)/1024, "allocKB/compaction")
		b.ReportMetric(float64(c.compactions), "compactions")
		b.ReportMetric(float64(c.entries), "entries")
		b.ReportMetric(float64(c.inMemory), "entries-in-memory")
	}
}

// TestLongSessionMemoryIsFlat guards the bound issue 18 sets: over 1,000
// turns with automatic compaction the session's live heap after turn 1,000
// stays within 1.5 times that after turn 100 (the heap after a GC does not
// depend on the machine's load, unlike time), and so does the number of
// allocations a turn makes.
func TestLongSessionMemoryIsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1,000-turn session")
	}
	c := longSession(t)
	if c.compactions < 10 {
		t.Fatalf("only %d compactions in 1,000 turns: the session did not run as designed", c.compactions)
	}
	if r := float64(c.heap[1000]) / float64(c.heap[100]); r > 1.5 {
		t.Errorf("live heap after turn 1,000 is %.2f times that after turn 100 (%d KiB, %d KiB); %d of %d entries in memory",
			r, c.heap[1000]/1024, c.heap[100]/1024, c.inMemory, c.entries)
	}
	if a, b := c.turn[1000].objects, c.turn[100].objects; float64(a) > 1.5*float64(b) {
		t.Errorf("a turn around turn 1,000 allocates %d objects, around turn 100 %d: the per-turn cost grows", a, b)
	}
}

// peakRSSKB is the process's peak resident set (VmHWM) in KiB, or 0 where
// /proc does not say.
func peakRSSKB() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	return 0
}
