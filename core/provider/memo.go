package provider

import (
	"bytes"
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
	// pos is where in the history the encoding was made, for a shape whose
	// encoding depends on it (the Responses API numbers assistant
	// messages); the form serves only a request with the same pos.
	pos int
	// group is the Memos of the messages after this one that the encoding
	// also covers, for a shape that merges messages into one (Anthropic
	// merges a role's consecutive messages, Google a run of tool results);
	// the form serves only a request where the same messages follow.
	group []*Memo
}

// Wire shapes a Memo keeps forms for.
const (
	shapeOpenAI       = "openai-completions"
	shapeOpenAIDev    = "openai-completions/developer" // system role sent as "developer"
	shapeAnthropic    = "anthropic-messages"           // a wire message: this message and its group
	shapeResponses    = "openai-responses"             // the message's input items, comma-joined
	shapeResponsesDev = "openai-responses/developer"
	shapeGoogle       = "google-generative-ai" // a content: this message, or the run of tool results it starts
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
	m.store(memoForm{shape: shape, enc: enc})
}

// formAt is form for a shape whose encoding depends on pos.
func (m *Memo) formAt(shape string, pos int) ([]byte, bool) {
	if m == nil {
		return nil, false
	}
	if p := m.forms.Load(); p != nil {
		for _, f := range *p {
			if f.shape == shape {
				return f.enc, f.pos == pos
			}
		}
	}
	return nil, false
}

// keepAt stores the encoding of shape made at pos, replacing one made
// elsewhere (a compaction moves messages).
func (m *Memo) keepAt(shape string, pos int, enc []byte) {
	m.store(memoForm{shape: shape, enc: enc, pos: pos})
}

// formGroup is form for a shape that merges this message with the ones
// after it: the encoding is returned only when rest, the messages it
// covers besides this one, are still the ones it was made from.
func (m *Memo) formGroup(shape string, rest []Message) ([]byte, bool) {
	if m == nil {
		return nil, false
	}
	if p := m.forms.Load(); p != nil {
		for _, f := range *p {
			if f.shape != shape {
				continue
			}
			if len(f.group) != len(rest) {
				return nil, false
			}
			for i := range rest {
				if rest[i].Memo != f.group[i] {
					return nil, false
				}
			}
			return f.enc, true
		}
	}
	return nil, false
}

// keepGroup stores the encoding of shape for this message and rest, when
// every one of them has a Memo (a message made up for one request, such
// as the result closing an unanswered call, has none and is never the same
// message twice).
func (m *Memo) keepGroup(shape string, enc []byte, rest []Message) {
	if m == nil {
		return
	}
	group := make([]*Memo, len(rest))
	for i := range rest {
		if rest[i].Memo == nil {
			return
		}
		group[i] = rest[i].Memo
	}
	m.store(memoForm{shape: shape, enc: enc, group: group})
}

// store adds f, replacing a form of the same shape: a form is replaced only
// when the history around its message changed, so a request reading the
// old one concurrently still reads a whole, valid encoding.
func (m *Memo) store(f memoForm) {
	if m == nil {
		return
	}
	if f.enc == nil {
		f.enc = []byte{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var forms []memoForm
	if p := m.forms.Load(); p != nil {
		for _, g := range *p {
			if g.shape == f.shape {
				if f.group == nil && f.pos == g.pos {
					return // the same encoding, kept already
				}
				continue
			}
			forms = append(forms, g)
		}
	}
	forms = append(forms, f)
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

// ToolsMemo remembers a session's tool declarations as the last request
// checked and encoded them: the declarations rarely change between the
// requests of a session, and checking the schemas and encoding the list
// again was a fixed cost of every request. A request whose Tools differ in
// any byte from the remembered ones checks and encodes them afresh (and
// the memo then remembers those). The zero value is ready to use; a
// ToolsMemo is safe for concurrent use.
type ToolsMemo struct {
	mu    sync.Mutex
	specs []ToolSpec // a deep copy of the declarations the forms are for
	forms []memoForm
}

// sameTools reports whether tools are the remembered declarations. mu held.
func (t *ToolsMemo) sameTools(tools []ToolSpec) bool {
	if t.specs == nil || len(t.specs) != len(tools) {
		return false
	}
	for i, s := range t.specs {
		if s.Name != tools[i].Name || s.Description != tools[i].Description || !bytes.Equal(s.Parameters, tools[i].Parameters) {
			return false
		}
	}
	return true
}

// encoded returns the encoding of tools in shape, from the memo when it has
// one for these declarations, else from build (then kept). A nil memo
// always builds.
func (t *ToolsMemo) encoded(shape string, tools []ToolSpec, build func() ([]byte, error)) ([]byte, error) {
	if t == nil {
		return build()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.sameTools(tools) {
		for _, f := range t.forms {
			if f.shape == shape {
				return f.enc, nil
			}
		}
	} else {
		t.specs = make([]ToolSpec, len(tools))
		for i, s := range tools {
			t.specs[i] = ToolSpec{Name: s.Name, Description: s.Description, Parameters: bytes.Clone(s.Parameters)}
		}
		t.forms = nil
	}
	enc, err := build()
	if err != nil {
		return nil, err
	}
	t.forms = append(t.forms, memoForm{shape: shape, enc: enc})
	return enc, nil
}
