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

	"github.com/piwasm/pi/core/compact"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
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

// BenchmarkLongSessionWithCompaction runs a 1,000-turn session (a 400-
// character prompt and an 800-character reply per turn) against a 16,000-
// token window with automatic compaction, written to a session file. It
// reports the live heap after turn 100 and turn 1,000 (after a GC), their
// ratio, the time per turn around turn 100 and turn 1,000, and how many
// compactions ran.
func BenchmarkLongSessionWithCompaction(b *testing.B) {
	for i := 0; i < b.N; i++ {
		f := newFixture(b)
		tr, err := session.Create(filepath.Join(b.TempDir(), "s.jsonl"), session.Header{ID: "bench", Cwd: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		if err := f.rt.Switch(tr); err != nil {
			b.Fatal(err)
		}
		f.rt.runner.Model = sizeModel
		f.rt.runner.Route.ContextWindow = 16000
		f.rt.SetCompaction(compact.Settings{Enabled: true, ReserveTokens: 2000, KeepRecentTokens: 3000}, nil)
		prompt := strings.Repeat("Please look at the next part of the code base. ", 8)
		var heap [2]uint64
		var rss [2]int
		var per [2]time.Duration
		for turn := 1; turn <= 1000; turn++ {
			start := time.Now()
			if _, err := f.rt.Run(session.Input{Text: fmt.Sprintf("%d: %s", turn, prompt)}); err != nil {
				b.Fatal(err)
			}
			d := time.Since(start)
			switch {
			case turn > 90 && turn <= 100:
				per[0] += d / 10
			case turn > 990:
				per[1] += d / 10
			}
			if turn == 100 || turn == 1000 {
				f.mu.Lock()
				f.events = nil // the fixture's own event log is not the session's
				f.mu.Unlock()
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				heap[turn/1000] = ms.HeapAlloc
				rss[turn/1000] = peakRSSKB()
			}
		}
		b.ReportMetric(float64(heap[0])/1024, "heapKB@100")
		b.ReportMetric(float64(heap[1])/1024, "heapKB@1000")
		b.ReportMetric(float64(heap[1])/float64(heap[0]), "heap-ratio")
		if rss[0] > 0 {
			// The whole process's peak, as the target is put:
			// the session's growth on top of what the program needs.
			b.ReportMetric(float64(rss[0]), "peakRSSKB@100")
			b.ReportMetric(float64(rss[1]), "peakRSSKB@1000")
			b.ReportMetric(float64(rss[1])/float64(rss[0]), "peakRSS-ratio")
		}
		b.ReportMetric(float64(per[0].Microseconds()), "µs/turn@100")
		b.ReportMetric(float64(per[1].Microseconds()), "µs/turn@1000")
		b.ReportMetric(float64(entriesOf(f.rt.Transcript(), session.TypeCompaction)), "compactions")
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
