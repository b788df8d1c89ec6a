package session

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// What a transcript keeps in memory. A long session compacts again and
// again, and every compaction leaves the entries before its first kept
// entry out of the requests for good; abandoned branches are not sent
// either. Keeping them all would make a day-long session's memory grow
// with every turn, so the transcript keeps, for every entry of the file,
// only a ref (its id, its parent, its type and where its line is in the
// file) and the entry itself only while
//
//   - the active branch needs it for requests: the entries from the
//     latest compaction's first kept entry on, and before that those the
//     prompt's replay reads (system messages, projections, a compaction
//     carrying another harness's prompt, model and thinking-level records,
//     context edits and what decides whose a system message is);
//   - it is a label or the session's name, which every branch reads;
//   - it cannot be read back (a session in memory, an entry without an id
//     from a version-1 file, or one written after a failed write).
//
// Everything else is read back from the file when asked for: the whole
// file (Entries), the whole active branch (FullBranch), a path (PathTo),
// one entry (Lookup). The file itself is never rewritten.

// ref is what the transcript keeps of every entry: 40 bytes. An id of the
// usual shape (8 lowercase hex digits, what both harnesses write) is kept
// as its number; others are kept on the side (see Transcript.ids).
type ref struct {
	e      *Entry // the entry while it is in memory
	off    int64  // where the entry's line starts in the file; -1: nowhere
	parent int32  // the parent's ref, -1 for none (or one not in the file)
	kept   int32  // a compaction's first kept entry's ref, -1 for none
	n      int32  // the line's length
	hex    uint32 // the id, with refHexID
	kind   uint8
	flags  uint8
}

// Entry kinds the tree and the branch's needs are worked out from.
const (
	kindOther uint8 = iota
	kindCompaction
	kindProjection
	kindRoute // model_change and thinking_level_change
	kindContextEdit
	kindLabel
	kindSessionInfo
)

var kinds = map[string]uint8{TypeCompaction: kindCompaction, TypeProjection: kindProjection, TypeModelChange: kindRoute,
	TypeThinkingChange: kindRoute, TypeContextEdit: kindContextEdit, TypeLabel: kindLabel, TypeSessionInfo: kindSessionInfo}

const (
	refSystem  uint8 = 1 << iota // a system message
	refHead                      // a compaction carrying another harness's prompt
	refNode                      // replays into one node of the history
	refDecides                   // decides whose a system message before it is
	refHexID                     // the id is hex
	refOtherID                   // the id is in Transcript.ids.other
)

// idIndex finds refs by id: ids of the usual shape by their number, others
// by their text (an id is never both: the text of a number is lowercase
// hex).
type idIndex struct {
	hex   map[uint32]int32
	other map[string]int32
	names map[int32]string // the ids of other shapes, by ref
}

// hexID reads an id of the usual shape.
func hexID(id string) (uint32, bool) {
	if len(id) != 8 {
		return 0, false
	}
	var v uint32
	for i := 0; i < 8; i++ {
		c := id[i]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint32(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// find returns the ref of the entry with id (the last, should the file
// have two).
func (x *idIndex) find(id string) (int32, bool) {
	if id == "" {
		return -1, false
	}
	if v, ok := hexID(id); ok {
		i, ok := x.hex[v]
		return i, ok
	}
	i, ok := x.other[id]
	return i, ok
}

// id is the id of the entry refs[i] stands for.
func (t *Transcript) id(i int) string {
	r := &t.refs[i]
	switch {
	case r.flags&refHexID != 0:
		const digits = "0123456789abcdef"
		var b [8]byte
		for k := 7; k >= 0; k-- {
			b[k] = digits[r.hex>>(4*(7-k))&0xf]
		}
		return string(b[:])
	case r.flags&refOtherID != 0:
		return t.ids.names[int32(i)]
	}
	return ""
}

// hasID reports whether refs[i]'s entry has an id.
func (r *ref) hasID() bool { return r.flags&(refHexID|refOtherID) != 0 }

// add records e, appended to the file at off (its line n bytes long).
// t.mu must be held (or t not yet shared).
func (t *Transcript) add(e Entry, off int64, n int) {
	if t.ids.hex == nil {
		t.ids.hex = map[uint32]int32{}
	}
	r := ref{parent: -1, kept: -1, off: off, n: int32(n), kind: kinds[e.Type], flags: refFlags(&e)}
	if i, ok := t.ids.find(e.ParentID); ok {
		r.parent = i
	}
	if i, ok := t.ids.find(e.FirstKeptEntryID); ok && e.Type == TypeCompaction {
		r.kept = i
	}
	at := int32(len(t.refs))
	if v, ok := hexID(e.ID); ok {
		r.hex, r.flags = v, r.flags|refHexID
		t.ids.hex[v] = at
	} else if e.ID != "" {
		r.flags |= refOtherID
		if t.ids.other == nil {
			t.ids.other, t.ids.names = map[string]int32{}, map[int32]string{}
		}
		t.ids.other[e.ID], t.ids.names[at] = at, e.ID
	}
	if r.off >= 0 && (e.ID == "" || int64(n) != int64(r.n)) {
		r.off = -1
	}
	body := e
	r.e = &body
	t.refs = append(t.refs, r)
	t.stats.count(&body)
}

// refFlags says what an entry means to the history's replay (see
// replayNodes): whether it is a system message, whether it adds a node, and
// whether it decides whose a system message before it is (systemVerdict).
func refFlags(e *Entry) uint8 {
	var f uint8
	switch e.Type {
	case TypeMessage:
		m := e.Message
		if m == nil {
			return 0
		}
		if m.Role == "system" {
			return refSystem
		}
		f |= refDecides
		if m.Role != "bashExecution" || !m.ExcludeFromContext {
			f |= refNode
		}
	case TypeContext:
		f |= refNode | refDecides
	case TypeProjection:
		f |= refDecides
	case TypeCustomMessage:
		f |= refNode
	case TypeBranchSummary:
		if e.Summary != "" {
			f |= refNode
		}
	case TypeCompaction:
		f |= refNode
		if e.SystemMessage != nil {
			f |= refHead
		}
	}
	return f
}

// pinned reports whether an entry stays in memory whatever the branch.
func (t *Transcript) pinned(r *ref) bool {
	return r.off < 0 || r.kind == kindLabel || r.kind == kindSessionInfo
}

// chain lists the refs of the active branch in file order. t.mu must be
// held.
func (t *Transcript) chain() []int {
	out := make([]int, 0, 64)
	if t.atRoot || t.leaf == "" {
		for i := range t.refs {
			if t.leaf == "" && !t.atRoot || !t.refs[i].hasID() {
				out = append(out, i)
			}
		}
		return out
	}
	on := make([]bool, len(t.refs))
	if i, ok := t.ids.find(t.leaf); ok {
		for ; i >= 0 && !on[i]; i = t.refs[i].parent {
			on[i] = true
		}
	}
	for i := range t.refs {
		if on[i] || !t.refs[i].hasID() {
			out = append(out, i)
		}
	}
	return out
}

// needed picks from the active branch's refs those requests need (see
// the top of this file), and for each the number of history nodes the
// entries left out just before it would have added, so the nodes keep
// their Seq numbers (projections refer to system nodes by them).
func (t *Transcript) needed(chain []int) (idx, gaps []int) {
	c := -1
	for p := len(chain) - 1; p >= 0; p-- {
		if t.refs[chain[p]].kind == kindCompaction {
			c = p
			break
		}
	}
	if c < 0 {
		return chain, make([]int, len(chain))
	}
	kept := c
	if want := t.refs[chain[c]].kept; want >= 0 {
		for p := 0; p < c; p++ {
			if chain[p] == int(want) {
				kept = p
				break
			}
		}
	}
	idx, gaps = make([]int, 0, len(chain)-kept+16), make([]int, 0, len(chain)-kept+16)
	gap, pending := 0, false
	for p, i := range chain {
		r := &t.refs[i]
		need := p >= kept
		switch {
		case need:
		case r.flags&refSystem != 0:
			need, pending = true, true
		case pending && r.flags&refDecides != 0:
			need, pending = true, false
		case r.flags&refHead != 0:
			need = true
		}
		switch r.kind {
		case kindProjection, kindRoute, kindContextEdit:
			need = true
		}
		if !need {
			if r.flags&refNode != 0 {
				gap++
			}
			continue
		}
		idx, gaps = append(idx, i), append(gaps, gap)
		gap = 0
	}
	return idx, gaps
}

// computeBranch works the active branch out (what Branch returns), reads
// back what it needs that is not in memory, and lets go of what nothing
// needs any more. t.mu must be held.
func (t *Transcript) computeBranch() []Entry {
	idx, gaps := t.needed(t.chain())
	if err := t.readBack(idx); err != nil {
		t.Problems = append(t.Problems, Problem{Message: err.Error()})
	}
	out := make([]Entry, 0, len(idx))
	keep := make([]bool, len(t.refs))
	for k, i := range idx {
		r := &t.refs[i]
		if r.e == nil {
			continue // reported above
		}
		keep[i] = true
		e := *r.e
		e.seqGap += gaps[k]
		out = append(out, e)
	}
	for i := range t.refs {
		if r := &t.refs[i]; !keep[i] && !t.pinned(r) {
			r.e = nil
		}
	}
	return out
}

// readBack puts the entries idx refers to back in memory. t.mu must be
// held.
func (t *Transcript) readBack(idx []int) error {
	var missing []int
	for _, i := range idx {
		if t.refs[i].e == nil {
			missing = append(missing, i)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	es, err := t.read(missing)
	for k, i := range missing {
		if k < len(es) {
			e := es[k]
			t.refs[i].e = &e
		}
	}
	return err
}

// read reads the entries idx refers to from the file (those in memory are
// copied). It stops at the first it cannot read. t.mu must be held.
func (t *Transcript) read(idx []int) ([]Entry, error) {
	out := make([]Entry, 0, len(idx))
	var lr lineReader
	defer lr.close()
	for _, i := range idx {
		r := &t.refs[i]
		if r.e != nil {
			out = append(out, *r.e)
			continue
		}
		line, err := lr.line(t, i)
		if err != nil {
			return out, err
		}
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil || e.ID != t.id(i) {
			if err == nil {
				err = fmt.Errorf("the line at byte %d is entry %q", r.off, e.ID)
			}
			return out, fmt.Errorf("read back entry %s of session %s (the file changed?): %w", t.id(i), t.Path, err)
		}
		e.Raw = line
		out = append(out, e)
	}
	return out, nil
}

// lineReader reads entries' lines back from the session file, opening it
// on first use when the transcript does not hold it open.
type lineReader struct {
	src io.ReaderAt
	f   *os.File
}

// line reads the line of refs[i]. t.mu must be held.
func (lr *lineReader) line(t *Transcript, i int) ([]byte, error) {
	if lr.src == nil {
		if t.file != nil {
			lr.src = t.file
		} else {
			f, err := os.Open(t.Path)
			if err != nil {
				return nil, fmt.Errorf("read back session %s: %w", t.Path, err)
			}
			lr.src, lr.f = f, f
		}
	}
	r := &t.refs[i]
	line := make([]byte, r.n)
	if _, err := lr.src.ReadAt(line, r.off); err != nil {
		return nil, fmt.Errorf("read back entry %s of session %s: %w", t.id(i), t.Path, err)
	}
	return line, nil
}

func (lr *lineReader) close() {
	if lr.f != nil {
		lr.f.Close()
	}
}

// Entries returns every entry of the file in file order, reading back those
// not kept in memory: for what looks at the whole session (showing or
// exporting it, the tree, statistics). Its cost grows with the file.
func (t *Transcript) Entries() ([]Entry, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	idx := make([]int, len(t.refs))
	for i := range idx {
		idx[i] = i
	}
	return t.read(idx)
}

// Snapshot is Entries without the error: entries that cannot be read back
// are left out. Appends never change an entry already written, so it is
// safe while a run appends.
func (t *Transcript) Snapshot() []Entry {
	es, _ := t.Entries()
	return es
}

// Len is the number of entries in the file.
func (t *Transcript) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.refs)
}

// FullBranch returns every entry of the active branch, root first, those a
// compaction summarised away included (Branch leaves them out): for
// replaying recorded requests and listing a session's messages.
func (t *Transcript) FullBranch() ([]Entry, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.read(t.chain())
}

// InMemory counts the entries kept in memory (the rest is read back from
// the file when asked for).
func (t *Transcript) InMemory() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for i := range t.refs {
		if t.refs[i].e != nil {
			n++
		}
	}
	return n
}
