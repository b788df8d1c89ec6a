package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/piwasm/pi/core/prompt"
)

// The session tree: entries linked by id and parentId, a leaf that new
// entries hang from, labels on entries and a display name, as the
// established harness keeps them (its session-manager), so a session
// branched, labelled or forked in either harness reads the same in the
// other.

// LeafID is the id of the entry new entries hang from ("" before the
// first entry, or after a move to the root).
func (t *Transcript) LeafID() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.atRoot {
		return ""
	}
	return t.leaf
}

// Lookup returns the entry with id (the last one, should the file have
// two), read back from the file when it is not in memory.
func (t *Transcript) Lookup(id string) (Entry, bool) {
	if id == "" {
		return Entry{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	i, ok := t.ids.find(id)
	if !ok {
		return Entry{}, false
	}
	es, err := t.read([]int{int(i)})
	if err != nil || len(es) == 0 {
		return Entry{}, false
	}
	return es[0], true
}

// SetLeaf moves the leaf to the entry id ("" for before the first entry)
// without writing anything: the next entry hangs from it, as after the
// established harness's branch() and resetLeaf().
func (t *Transcript) SetLeaf(id string) error {
	if id != "" {
		if _, ok := t.Lookup(id); !ok {
			return fmt.Errorf("entry %s not found", id)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.leaf, t.atRoot = id, id == ""
	return nil
}

// BranchSummary is a summary of an abandoned branch, to be stored where
// the session continues.
type BranchSummary struct {
	Summary  string
	Files    *FileLists
	Usage    *prompt.Usage
	FromHook bool
}

// BranchWithSummary moves the leaf to from ("" for the root) and appends a
// branch_summary entry there recording the leaf it left; the summary entry
// becomes the leaf. It returns the new entry.
func (t *Transcript) BranchWithSummary(from string, s BranchSummary) (Entry, error) {
	fromID := t.LeafID()
	if fromID == "" {
		fromID = "root"
	}
	if err := t.SetLeaf(from); err != nil {
		return Entry{}, err
	}
	e := Entry{Type: TypeBranchSummary, FromID: fromID, Summary: s.Summary, Files: s.Files, Usage: s.Usage, FromHook: s.FromHook}
	return t.appendEntry(e)
}

// Label is the label on an entry and when it was set.
type Label struct {
	Text string
	Time string
}

// Labels resolves the label entries of the whole file: the latest label
// entry for a target wins, and an empty one clears it.
func (t *Transcript) Labels() map[string]Label {
	out := map[string]Label{}
	for _, e := range t.pinnedOf(TypeLabel) {
		if e.TargetID == "" {
			continue
		}
		if e.Label == "" {
			delete(out, e.TargetID)
		} else {
			out[e.TargetID] = Label{Text: e.Label, Time: e.Time}
		}
	}
	return out
}

// SetLabel appends a label entry on target; an empty label clears it.
func (t *Transcript) SetLabel(target, label string) error {
	if _, ok := t.Lookup(target); !ok {
		return fmt.Errorf("entry %s not found", target)
	}
	return t.Append(Entry{Type: TypeLabel, TargetID: target, Label: strings.TrimSpace(label)})
}

// Name is the session's display name: the latest session_info entry of
// the file ("" when none, or when the latest cleared it).
func (t *Transcript) Name() string {
	return sessionName(t.pinnedOf(TypeSessionInfo))
}

// pinnedOf returns the entries of a kind that stays in memory (labels and
// session names), in file order.
func (t *Transcript) pinnedOf(kind string) []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []Entry
	for i := range t.refs {
		if r := &t.refs[i]; r.e != nil && r.e.Type == kind {
			out = append(out, *r.e)
		}
	}
	return out
}

func sessionName(entries []Entry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Type == TypeSessionInfo {
			return strings.TrimSpace(entries[i].Name)
		}
	}
	return ""
}

// SetName appends a session_info entry naming the session (line breaks
// become spaces, as the established harness stores names).
func (t *Transcript) SetName(name string) error {
	name = strings.TrimSpace(strings.Join(strings.FieldsFunc(name, func(r rune) bool { return r == '\n' || r == '\r' }), " "))
	return t.Append(Entry{Type: TypeSessionInfo, Name: name})
}

// TreeNode is an entry with its children (oldest first) and its label.
type TreeNode struct {
	Entry    Entry
	Children []*TreeNode
	Label    string
	LabelAt  string
}

// Tree returns the entries as a forest: roots are entries without a
// parent, and entries whose parent is missing (a broken chain). Entries
// without an id (version-1 files) are left out. Every entry is decoded,
// read back from the file where it is not in memory.
func (t *Transcript) Tree() []*TreeNode { return t.tree(true) }

// TreeLines is Tree for writing the tree out as JSON (RPC's get_tree): an
// entry not in memory is its line as read (Raw, which MarshalJSON writes)
// with its ID, and is not decoded; the shape comes from the index the
// transcript keeps of every entry.
func (t *Transcript) TreeLines() []*TreeNode { return t.tree(false) }

func (t *Transcript) tree(decode bool) []*TreeNode {
	labels := t.Labels()
	t.mu.Lock()
	defer t.mu.Unlock()
	idx := make([]int, 0, len(t.refs))
	for i := range t.refs {
		if t.refs[i].hasID() {
			idx = append(idx, i)
		}
	}
	var entries []Entry
	if decode {
		entries, _ = t.read(idx)
	} else {
		entries, _ = t.readLines(idx)
	}
	nodes := make(map[int]*TreeNode, len(entries))
	order := make([]*TreeNode, len(entries))
	for k, e := range entries {
		n := &TreeNode{Entry: e}
		if l, ok := labels[e.ID]; ok {
			n.Label, n.LabelAt = l.Text, l.Time
		}
		nodes[idx[k]], order[k] = n, n
	}
	var roots []*TreeNode
	for k, n := range order {
		if parent, ok := nodes[int(t.refs[idx[k]].parent)]; ok && parent != n {
			parent.Children = append(parent.Children, n)
		} else {
			roots = append(roots, n)
		}
	}
	for _, n := range order {
		if len(n.Children) < 2 {
			continue
		}
		times := make(map[*TreeNode]time.Time, len(n.Children))
		for _, c := range n.Children {
			times[c] = entryTime(c.Entry)
		}
		sort.SliceStable(n.Children, func(i, j int) bool {
			return times[n.Children[i]].Before(times[n.Children[j]])
		})
	}
	return roots
}

// readLines is read without decoding: an entry not in memory comes back
// as its ID and its line. A line that does not hold its id as the
// harnesses write it is decoded to check it. t.mu must be held.
func (t *Transcript) readLines(idx []int) ([]Entry, error) {
	out := make([]Entry, 0, len(idx))
	var lr lineReader
	defer lr.close()
	for _, i := range idx {
		if r := &t.refs[i]; r.e != nil {
			out = append(out, *r.e)
			continue
		}
		line, err := lr.line(t, i)
		if err != nil {
			return out, err
		}
		id := t.id(i)
		if !bytes.Contains(line, []byte(`"id":`+jsonString(id))) {
			es, err := t.read([]int{i})
			if err != nil {
				return out, err
			}
			out = append(out, es[0])
			continue
		}
		out = append(out, Entry{ID: id, Raw: line})
	}
	return out, nil
}

// entryTime is when the entry was written (the zero time when unknown);
// an entry that is only its line has its timestamp read from the line.
func entryTime(e Entry) time.Time {
	ts := e.Time
	if ts == "" && e.Raw != nil && e.Message == nil {
		var w struct {
			Timestamp string `json:"timestamp"`
		}
		_ = json.Unmarshal(e.Raw, &w)
		ts = w.Timestamp
	}
	tm, _ := time.Parse(time.RFC3339Nano, ts)
	return tm
}

// PathTo returns the entries from the root down to id, in order (read
// back from the file where they are not in memory).
func (t *Transcript) PathTo(id string) []Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	var rev []int
	seen := map[int32]bool{}
	if i, ok := t.ids.find(id); ok {
		for ; i >= 0 && !seen[i]; i = t.refs[i].parent {
			seen[i] = true
			rev = append(rev, int(i))
		}
	}
	idx := make([]int, len(rev))
	for k, i := range rev {
		idx[len(rev)-1-k] = i
	}
	out, _ := t.read(idx)
	return out
}

// ForkMessage is a user message a session can be forked from.
type ForkMessage struct {
	EntryID string `json:"entryId"`
	Text    string `json:"text"`
}

// ForkMessages lists the user messages of the file with text, in file
// order (every branch, as the established harness offers them).
func (t *Transcript) ForkMessages() []ForkMessage {
	out := []ForkMessage{}
	for _, e := range t.Snapshot() {
		if e.Type == TypeMessage && e.ID != "" && e.Message.Role == "user" {
			if text := e.Message.Content.Text(); text != "" {
				out = append(out, ForkMessage{EntryID: e.ID, Text: text})
			}
		}
	}
	return out
}

// ForkTarget says where a fork of the entry id ends and what goes back to
// the editor: for a user message the new session ends at its parent and
// the message's text is returned (position "before"); with at, the new
// session ends at the entry itself (a clone).
func (t *Transcript) ForkTarget(id string, at bool) (leaf, text string, err error) {
	e, ok := t.Lookup(id)
	if !ok {
		return "", "", errors.New("Invalid entry ID for forking")
	}
	if at {
		return e.ID, "", nil
	}
	if e.Type != TypeMessage || e.Message.Role != "user" {
		return "", "", errors.New("Invalid entry ID for forking")
	}
	return e.ParentID, e.Message.Content.Text(), nil
}

// Fork writes a new session file at path holding the branch from the root
// to leaf ("" for an empty session), as the established harness's
// createBranchedSession does: entries keep their ids, label entries are
// left out of the chain (what hung from one is re-linked to the entry
// before it) and the labels of entries on the path are written again at
// the end; a compaction whose first kept entry was a label is re-pointed.
// The header names this session as the parent. A session in memory (path
// "") forks into memory.
func (t *Transcript) Fork(path string, h Header, leaf string) (*Transcript, error) {
	var chain []Entry
	if leaf != "" {
		chain = t.PathTo(leaf)
		if len(chain) == 0 {
			return nil, fmt.Errorf("entry %s not found", leaf)
		}
	}
	if h.ParentSession == "" {
		h.ParentSession = t.Path
	}
	kept := make([]Entry, 0, len(chain))
	replaced := map[string]string{}
	var pendingLabels []string
	parent := ""
	for _, e := range chain {
		if e.Type == TypeLabel {
			pendingLabels = append(pendingLabels, e.ID)
			continue
		}
		for _, l := range pendingLabels {
			replaced[l] = e.ID
		}
		pendingLabels = pendingLabels[:0]
		if e.ParentID != parent {
			e = e.withParent(parent)
		}
		if e.Type == TypeCompaction && e.FirstKeptEntryID != e.ID {
			if to, ok := replaced[e.FirstKeptEntryID]; ok {
				e = e.withFirstKept(to)
			}
		}
		kept = append(kept, e)
		parent = e.ID
	}
	nt, err := Create(path, h)
	if err != nil {
		return nil, err
	}
	nt.Now = t.Now
	ok := false
	defer func() {
		if !ok {
			nt.Close()
			if path != "" {
				os.Remove(path)
			}
		}
	}()
	onPath := map[string]bool{}
	for _, e := range kept {
		onPath[e.ID] = true
		if err := nt.Append(e); err != nil {
			return nil, err
		}
	}
	// Labels in the order they were last set, each hanging from the one
	// before, with the time it was set.
	labels := t.Labels()
	var targets []string
	for id := range labels {
		if onPath[id] {
			targets = append(targets, id)
		}
	}
	sort.Slice(targets, func(i, j int) bool { return labels[targets[i]].Time < labels[targets[j]].Time })
	for _, id := range targets {
		l := labels[id]
		e := Entry{Type: TypeLabel, ID: nt.newEntryID(), ParentID: nt.LeafID(), Time: l.Time, TargetID: id, Label: l.Text}
		if err := nt.Append(e); err != nil {
			return nil, err
		}
	}
	ok = true
	return nt, nil
}

// CopyInto writes a copy of the session file src as a new session at path
// with header h (its parentSession is src): every entry as it was, for
// --fork.
func CopyInto(src, path string, h Header) (*Transcript, error) {
	from, err := Load(src)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		abs = src
	}
	h.ParentSession = abs
	nt, err := Create(path, h)
	if err != nil {
		return nil, err
	}
	entries, err := from.Entries()
	if err != nil {
		nt.Close()
		os.Remove(path)
		return nil, err
	}
	for _, e := range entries {
		if err := nt.Append(e); err != nil {
			nt.Close()
			os.Remove(path)
			return nil, err
		}
	}
	return nt, nil
}

// withParent returns the entry re-linked under parent ("" for a root);
// an entry read from disk has its stored line changed in place so its
// other fields and their order survive.
func (e Entry) withParent(parent string) Entry {
	old := e.ParentID
	e.ParentID = parent
	if e.Raw != nil {
		to := []byte(`"parentId":null`)
		if parent != "" {
			to = []byte(`"parentId":` + jsonString(parent))
		}
		from := []byte(`"parentId":null`)
		if old != "" {
			from = []byte(`"parentId":` + jsonString(old))
		}
		e.Raw = bytes.Replace(e.Raw, from, to, 1)
	}
	return e
}

// withFirstKept re-points a compaction's first kept entry.
func (e Entry) withFirstKept(id string) Entry {
	old := e.FirstKeptEntryID
	e.FirstKeptEntryID = id
	if e.Raw != nil {
		e.Raw = bytes.Replace(e.Raw, []byte(`"firstKeptEntryId":`+jsonString(old)), []byte(`"firstKeptEntryId":`+jsonString(id)), 1)
	}
	return e
}

// ForkBeside forks the session (see Fork) into a new file with a new id
// in the same directory, as the established harness places forks and
// clones; a session in memory forks into memory.
func (t *Transcript) ForkBeside(leaf string, now time.Time) (*Transcript, error) {
	id, err := NewID()
	if err != nil {
		return nil, err
	}
	h := Header{ID: id, Cwd: t.Header.Cwd, Timestamp: now.UTC().Format("2006-01-02T15:04:05.000Z")}
	path := ""
	if t.Path != "" {
		path = filepath.Join(filepath.Dir(t.Path), now.UTC().Format("2006-01-02T15-04-05.000Z")+"_"+id+".jsonl")
	}
	return t.Fork(path, h, leaf)
}

// Branches counts the tips of the tree: entries nothing hangs from (one
// for a session never branched).
func (t *Transcript) Branches() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	parent := make([]bool, len(t.refs))
	for i := range t.refs {
		if p := t.refs[i].parent; p >= 0 {
			parent[p] = true
		}
	}
	n := 0
	for i := range t.refs {
		if t.refs[i].hasID() && !parent[i] {
			n++
		}
	}
	return n
}
