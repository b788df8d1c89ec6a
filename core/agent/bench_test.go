package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/tool"
)

// instant is a model that answers at once: n turns of k calls each, then
// a closing text, so the benchmark measures the loop and nothing else.
type instant struct {
	turns, calls, i int
	blocks          [][]prompt.Block
}

func newInstant(turns, calls int) *instant {
	m := &instant{turns: turns, calls: calls}
	for t := 0; t < turns; t++ {
		var bs []prompt.Block
		for c := 0; c < calls; c++ {
			bs = append(bs, prompt.Block{Type: "toolCall", ID: fmt.Sprintf("c%d_%d", t, c), Name: "echo", Arguments: json.RawMessage(`{"text":"hello"}`)})
		}
		m.blocks = append(m.blocks, bs)
	}
	return m
}

func (m *instant) Stream(ctx context.Context, start func(prompt.Message), emit func(Delta)) (prompt.Message, error) {
	start(prompt.Message{})
	if m.i < m.turns {
		b := m.blocks[m.i]
		m.i++
		return prompt.Message{Content: prompt.Content{Blocks: b}, StopReason: "toolUse"}, nil
	}
	emit(Delta{Type: "text_delta", Delta: "done"})
	return prompt.Message{Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: "done"}}}, StopReason: "stop"}, nil
}

// BenchmarkLoopPerTurn is the loop's own cost per turn with one tool call
// (a tool that returns at once), events emitted and recorded in memory.
func BenchmarkLoopPerTurn(b *testing.B) {
	for _, calls := range []int{1, 8} {
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			reg := registry{"echo": echo(tool.Parallel, nil, nil)}
			const turns = 50
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var events int
				l := &Loop{Model: newInstant(turns, calls), Tools: reg, Emit: func(Event) { events++ }, Record: func(prompt.Message) error { return nil }}
				if _, err := l.Run(context.Background(), nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns)/1000, "µs/turn")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*turns*calls)/1000, "µs/call")
		})
	}
}
