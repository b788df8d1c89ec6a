package ui

import (
	"context"
	"io"
	"os"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/piwasm/pi/core/agent"
)

// Run shows the session on a terminal until the person quits or ctx ends.
// q, when not nil, is the Asker the session's permission gate was given.
func Run(ctx context.Context, h Host, q *Questions, in io.Reader, out io.Writer) error {
	m := New(h)
	// The colour profile Bubble Tea would detect, raised to true colour or
	// held at 256 colours as terminal.trueColor / PI_TRUE_COLOR say.
	profile := h.Terminal.Profile(colorprofile.Detect(out, os.Environ()))
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithoutSignalHandler(), tea.WithColorProfile(profile))
	m.send = p.Send
	if q != nil {
		q.attach(p.Send)
		defer q.attach(nil)
	}
	f := newForwarder(p.Send)
	unsubscribe := h.Runtime.Subscribe(f.push)
	defer unsubscribe()
	go f.run(ctx)
	defer f.stop()
	_, err := p.Run()
	if err == tea.ErrProgramKilled && ctx.Err() != nil {
		err = nil
	}
	if err == nil {
		// Full-screen mode leaves the alternate screen blank behind it.
		if text := m.exitOutput(); text != "" {
			io.WriteString(out, text)
		}
	}
	if h.Runtime.State().Running {
		h.Runtime.Abort()
	}
	return err
}

// forwarder hands runtime events to the program without ever blocking the
// run: events queue up while the UI draws, and everything queued goes over
// as one batch (one frame for many stream deltas).
type forwarder struct {
	send   func(tea.Msg)
	mu     sync.Mutex
	queue  []agent.Event
	wake   chan struct{}
	closed chan struct{}
	once   sync.Once
}

func newForwarder(send func(tea.Msg)) *forwarder {
	return &forwarder{send: send, wake: make(chan struct{}, 1), closed: make(chan struct{})}
}

func (f *forwarder) push(e agent.Event) {
	f.mu.Lock()
	f.queue = append(f.queue, e)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *forwarder) run(ctx context.Context) {
	for {
		select {
		case <-f.wake:
		case <-f.closed:
			return
		case <-ctx.Done():
			return
		}
		f.mu.Lock()
		batch := f.queue
		f.queue = nil
		f.mu.Unlock()
		if len(batch) > 0 {
			f.send(eventsMsg(batch))
		}
	}
}

func (f *forwarder) stop() { f.once.Do(func() { close(f.closed) }) }
