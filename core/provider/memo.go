package provider

import (
	"sync"
	"sync/atomic"
)

// Memo remembers what the body builders worked out for one message: that it
// passed the checks, and its encoded JSON in each wire shape it was sent
// in. A session gives every recorded message a Memo (recorded messages never
// change), so a request at turn 1,000 copies 1,000 encoded messages instead
// of encoding them again: the cost of building a body stays a copy of the
// history plus the work for the newest messages.
//
// A Message must not change once it carries a Memo. The zero value is ready
// to use; a Memo is safe for concurrent use.
type Memo struct {
	checked atomic.Bool
	chars   atomic.Int64               // the message's size for estimateTokens, plus one; 0: not counted yet
	forms   atomic.Pointer[[]memoForm] // replaced whole, never changed in place
	mu      sync.Mutex                 // serialises keep
}

type memoForm struct {
	shape string
	enc   []byte
}

// Wire shapes a Memo keeps forms for.
const (
	shapeOpenAI    = "openai-completions"
	shapeOpenAIDev = "openai-completions/developer" // system role sent as "developer"
)

// form returns the encoding of shape, if one was kept. An empty non-nil
// encoding means the message sends nothing in that shape.
func (m *Memo) form(shape string) ([]byte, bool) {
	if m == nil {
		return nil, false
	}
	if p := m.forms.Load(); p != nil {
		for _, f := range *p {
			if f.shape == shape {
				return f.enc, true
			}
		}
	}
	return nil, false
}

// keep stores the encoding of shape (never modified afterwards).
func (m *Memo) keep(shape string, enc []byte) {
	if m == nil {
		return
	}
	if enc == nil {
		enc = []byte{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var forms []memoForm
	if p := m.forms.Load(); p != nil {
		for _, f := range *p {
			if f.shape == shape {
				return
			}
		}
		forms = append(forms, *p...)
	}
	forms = append(forms, memoForm{shape: shape, enc: enc})
	m.forms.Store(&forms)
}

func (m *Memo) isChecked() bool { return m != nil && m.checked.Load() }

func (m *Memo) markChecked() {
	if m != nil {
		m.checked.Store(true)
	}
}

// messageSize is messageChars(*msg), counted once for a message with a
// Memo.
func messageSize(msg *Message) int {
	m := msg.Memo
	if m == nil {
		return messageChars(*msg)
	}
	if n := m.chars.Load(); n > 0 {
		return int(n - 1)
	}
	n := messageChars(*msg)
	m.chars.Store(int64(n) + 1)
	return n
}
