package ui

import (
	"runtime"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/prompt"
)

// 500 exchanges of four messages: a 2,000-message session.
const benchExchanges = 500

// BenchmarkFrameWhileStreaming is one frame while a reply streams in a
// 2,000-message session: an event batch applied, then the view drawn.
// The target is 16 ms (60 frames a second).
func BenchmarkFrameWhileStreaming(b *testing.B) {
	for _, mode := range []struct {
		name string
		full bool
	}{{"inline", false}, {"fullscreen", true}} {
		b.Run(mode.name, func(b *testing.B) {
			m := liveModel(b, mode.full)
			start := prompt.Message{Role: "assistant"}
			m.Update(eventsMsg{{Type: agent.AgentStart}, {Type: agent.MessageStart, Message: &start}})
			delta := eventsMsg{{Type: agent.MessageUpdate, Delta: &agent.Delta{Type: "text_delta", Delta: "some **more** text, "}}}
			b.ResetTimer()
			for b.Loop() {
				m.Update(delta)
				// A frame: what the renderer draws at most 60 times a second;
				// the markdown of the stream is re-rendered for it.
				m.streamDirty = true
				m.refreshStream(true)
				m.View()
			}
		})
	}
}

// liveModel is a session through which 2,000 messages arrived one by one.
func liveModel(b *testing.B, full bool) *Model {
	dir := b.TempDir()
	msgs := newTestRuntime(b, dir, benchExchanges).Messages()
	m := New(Host{Runtime: newTestRuntime(b, dir, 0), Cwd: dir, FullScreen: full})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for i := range msgs {
		m.Update(eventsMsg{{Type: agent.MessageEnd, Message: &msgs[i]}})
	}
	m.View()
	return m
}

// BenchmarkStartupToFirstFrame is building the session's model and drawing
// its first frame, for an empty session and a 2,000-message one being
// resumed. The target is 50 ms.
func BenchmarkStartupToFirstFrame(b *testing.B) {
	for _, n := range []int{0, benchExchanges} {
		b.Run(map[int]string{0: "empty", benchExchanges: "2000-messages"}[n], func(b *testing.B) {
			dir := b.TempDir()
			rt := newTestRuntime(b, dir, n)
			b.ResetTimer()
			for b.Loop() {
				m := New(Host{Runtime: rt, Cwd: dir})
				m.Init()
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				m.flush()
				m.View()
			}
		})
	}
}

// BenchmarkMemory2000Messages reports the live heap after a session in
// which 2,000 messages arrived one by one (each drawn as it finished), in
// both modes: inline hands finished messages to the scrollback, full
// screen keeps them rendered and cached.
func BenchmarkMemory2000Messages(b *testing.B) {
	dir := b.TempDir()
	msgs := newTestRuntime(b, dir, benchExchanges).Messages()
	for _, full := range []bool{false, true} {
		name := map[bool]string{false: "inline", true: "fullscreen"}[full]
		b.Run(name, func(b *testing.B) {
			var keep *Model
			for b.Loop() {
				keep = nil
				runtime.GC()
				m := New(Host{Runtime: newTestRuntime(b, dir, 0), Cwd: dir, FullScreen: full})
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				for i := range msgs {
					m.Update(eventsMsg{{Type: agent.MessageEnd, Message: &msgs[i]}})
					m.View()
				}
				keep = m
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MiB")
			runtime.KeepAlive(keep)
		})
	}
}
