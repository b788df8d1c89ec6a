package session

import (
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
)

// view is what the request path reads from the active branch, kept up to
// date as entries are appended instead of worked out again from every entry
// before each request: the branch itself, the model and thinking level it
// last recorded, and its request history with each message converted once
// and carrying a provider.Memo (recorded messages never change), so the
// body of a request at turn 1,000 is built from the history's encoded
// messages without encoding them again.
//
// The view describes the transcript while its leaf and entry count are the
// ones it was built for; anything else (a move on the tree, entries added
// some other way) rebuilds it on the next read. The history is extended
// entry by entry only for the entries a turn appends (user, assistant and
// tool-result messages, and the records that add nothing to it); any other
// entry (a system message, a projection, a compaction, an edit …) has it
// replayed by History.
type view struct {
	valid   bool
	leaf    string
	atRoot  bool
	entries int
	branch  []Entry
	// The branch's last model_change and thinking_level_change values.
	provider, model, thinking string

	hist  []Node // History(branch[:histN]); nil before the first read
	histN int
	seq   int // the Seq of the next node replayed
	// open: branch[:histN] ends in a system message no later entry has
	// placed yet (see foreignSystem), so the next entry may change it.
	open bool
	msgs []provider.Message // Messages(hist, nil), with Memos
}

// converted is a recorded message as a provider message (ok false: it is
// left out of requests).
type converted struct {
	m  provider.Message
	ok bool
}

// current returns the up-to-date view. t.mu must be held.
func (t *Transcript) current() *view {
	v := &t.view
	if !v.valid || v.leaf != t.leaf || v.atRoot != t.atRoot || v.entries != len(t.refs) {
		t.view = view{valid: true, leaf: t.leaf, atRoot: t.atRoot, entries: len(t.refs), branch: t.computeBranch()}
		for _, e := range t.view.branch {
			t.view.note(e)
		}
	}
	return v
}

// note takes in an entry of the branch.
func (v *view) note(e Entry) {
	switch e.Type {
	case TypeModelChange:
		v.provider, v.model = e.Provider, e.ModelID
	case TypeThinkingChange:
		v.thinking = e.ThinkingLevel
	}
}

// appended updates the view for e, just appended as the last entry, with
// the leaf as it was before.
func (t *Transcript) appended(e Entry, prevLeaf string, prevRoot bool) {
	v := &t.view
	if !v.valid || v.leaf != prevLeaf || v.atRoot != prevRoot || v.entries != len(t.refs)-1 {
		v.valid = false
		return
	}
	if e.Type == TypeCompaction {
		// The branch is worked out again: what the compaction summarised
		// away leaves memory (see memory.go).
		v.valid = false
		return
	}
	if e.ID != "" && e.ParentID != prevLeaf && !(prevLeaf == "" && !prevRoot) {
		v.valid = false // it hangs elsewhere in the tree
		return
	}
	v.branch = append(v.branch, e)
	v.leaf, v.atRoot, v.entries = t.leaf, t.atRoot, len(t.refs)
	v.note(e)
}

// Branch returns the entries of the active branch that requests need, in
// file order: the chain from the last entry up to the root, less the
// entries before the latest compaction's first kept entry that add nothing
// to the request (see memory.go; FullBranch has them all). Entries without an id (pi's
// version-1 files) are linear and always part of it. A session the
// established harness branched with /tree is continued from its latest
// entry, as that harness does. The slice is shared: do not change it.
func (t *Transcript) Branch() []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.current().branch
	return b[:len(b):len(b)]
}

// routeRecord is the model and thinking level the branch last recorded
// (model_change and thinking_level_change entries).
func (t *Transcript) routeRecord() (prov, model, thinking string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.current()
	return v.provider, v.model, v.thinking
}

// history is History(t.Branch()).
func (t *Transcript) history() []Node {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.historyView()
	return v.hist[:len(v.hist):len(v.hist)]
}

// Projected returns the active branch and its request history (History
// of it), as kept up to date for requests: what compaction measures, at a
// cost that does not grow with the session. Both are shared: do not change
// them.
func (t *Transcript) Projected() ([]Entry, []Node) {
	t.mu.Lock()
	defer t.mu.Unlock()
	v := t.historyView()
	return v.branch[:len(v.branch):len(v.branch)], v.hist[:len(v.hist):len(v.hist)]
}

// requestMessages is Messages(History(t.Branch()), forced), each message
// converted once and carrying a Memo.
func (t *Transcript) requestMessages(forced *string) []provider.Message {
	t.mu.Lock()
	defer t.mu.Unlock()
	msgs := t.historyView().msgs
	if forced == nil {
		return msgs[:len(msgs):len(msgs)]
	}
	out := make([]provider.Message, 0, len(msgs)+1)
	out = append(out, provider.Message{Role: provider.RoleSystem, Content: *forced})
	for _, m := range msgs {
		if m.Role != provider.RoleSystem {
			out = append(out, m)
		}
	}
	return out
}

// historyView brings the view's history up to the end of the branch. t.mu
// must be held.
func (t *Transcript) historyView() *view {
	v := t.current()
	b := v.branch
	if v.hist == nil && len(b) > 0 {
		t.replay(v)
	}
	for v.histN < len(b) {
		e := b[v.histN]
		switch {
		case v.open:
			t.replay(v)
			return v
		case inert(e):
		case plainMessage(e):
			v.seq += e.seqGap
			m := e.Message
			text := m.Content.Text()
			n := Node{Seq: v.seq, Role: m.Role, Kind: m.Role, Text: text, Content: text, Entry: v.histN, Msg: m}
			v.seq++
			v.hist = append(v.hist, n)
			if c := t.convert(n); c.ok {
				v.msgs = append(v.msgs, c.m)
			}
		default:
			t.replay(v)
			return v
		}
		v.histN++
	}
	return v
}

// replay works the view's history out from the whole branch.
func (t *Transcript) replay(v *view) {
	b := v.branch
	v.hist, v.seq = history(b)
	if v.hist == nil {
		v.hist = []Node{}
	}
	v.histN = len(b)
	v.open = false
	for i := len(b) - 1; i >= 0; i-- {
		if e := b[i]; e.Type == TypeMessage && e.Message != nil && e.Message.Role == "system" {
			_, decided := systemVerdict(b, i)
			v.open = !decided
			break
		}
	}
	v.msgs = make([]provider.Message, 0, len(v.hist))
	old := t.conv
	t.conv = make(map[*prompt.Message]converted, len(v.hist))
	for _, n := range v.hist {
		// Conversions (and their encodings) of messages still in the
		// history carry over; those of messages a compaction summarised
		// away are dropped with the old map, or a long session would keep
		// every encoding it ever sent.
		if n.Msg != nil {
			if c, ok := old[n.Msg]; ok {
				t.conv[n.Msg] = c
			}
		}
		if c := t.convert(n); c.ok {
			v.msgs = append(v.msgs, c.m)
		}
	}
}

// convert is Messages' conversion of one node (forced nil), with a Memo.
// A recorded message is converted once for the transcript's life, so its
// Memo outlives replays of the history.
func (t *Transcript) convert(n Node) converted {
	if n.Role == "system" && n.Content == "" {
		return converted{}
	}
	if n.Msg == nil {
		m := nodeMessage(n)
		m.Memo = &provider.Memo{}
		return converted{m, true}
	}
	if c, ok := t.conv[n.Msg]; ok {
		return c
	}
	m, ok := toProvider(*n.Msg)
	m.Memo = &provider.Memo{}
	c := converted{m, ok}
	if t.conv == nil {
		t.conv = map[*prompt.Message]converted{}
	}
	t.conv[n.Msg] = c
	return c
}

// inert reports whether an entry adds nothing to the history.
func inert(e Entry) bool {
	switch e.Type {
	case TypeRequest, TypeError, TypeDecision, TypeModelChange, TypeThinkingChange:
		return true
	}
	return false
}

// plainMessage reports whether an entry is a conversation message that
// History turns into one node of its own (no other wording).
func plainMessage(e Entry) bool {
	if e.Type != TypeMessage || e.Message == nil {
		return false
	}
	switch e.Message.Role {
	case "user", "assistant", prompt.RoleToolResult:
		return true
	}
	return false
}
