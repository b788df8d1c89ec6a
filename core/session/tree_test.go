package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/core/prompt"
)

// treeFixture is a session file with two exchanges; the clock ticks one
// second per entry so children sort by time.
func treeFixture(t *testing.T) (*Transcript, []string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	tr, err := Create(path, Header{ID: "s1", Cwd: "/w", Timestamp: "2026-01-01T00:00:00.000Z"})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tr.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
	var ids []string
	for _, m := range []prompt.Message{
		{Role: "user", Content: prompt.TextContent("first")},
		{Role: "assistant", Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: "one"}}}},
		{Role: "user", Content: prompt.TextContent("second")},
		{Role: "assistant", Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: "two"}}}},
	} {
		m := m
		if err := tr.Append(Entry{Type: TypeMessage, Message: &m}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.LeafID())
	}
	return tr, ids
}

func texts(entries []Entry) string {
	var out []string
	for _, e := range entries {
		switch {
		case e.Type == TypeMessage:
			out = append(out, e.Message.Content.Text())
		case e.Type == TypeBranchSummary:
			out = append(out, "summary:"+e.Summary)
		default:
			out = append(out, e.Type)
		}
	}
	return strings.Join(out, ",")
}

func userMsg(text string) Entry {
	return Entry{Type: TypeMessage, Message: &prompt.Message{Role: "user", Content: prompt.TextContent(text)}}
}

func TestNavigateTheTree(t *testing.T) {
	tr, ids := treeFixture(t)
	defer tr.Close()

	// Back to the first reply: a new message branches from it.
	if err := tr.SetLeaf(ids[1]); err != nil {
		t.Fatal(err)
	}
	if got := texts(tr.Branch()); got != "first,one" {
		t.Errorf("branch after the move: %s", got)
	}
	tr.Append(userMsg("other"))
	if got := texts(tr.Branch()); got != "first,one,other" {
		t.Errorf("branch after the new message: %s", got)
	}
	// To the root: the next entry is a new root.
	if err := tr.SetLeaf(""); err != nil {
		t.Fatal(err)
	}
	if got := texts(tr.Branch()); got != "" {
		t.Errorf("branch at the root: %q", got)
	}
	tr.Append(userMsg("fresh start"))
	last := tr.Snapshot()[len(tr.Snapshot())-1]
	if last.ParentID != "" {
		t.Errorf("entry after a move to the root has parent %q", last.ParentID)
	}
	if err := tr.SetLeaf("nope"); err == nil {
		t.Error("moving to a missing entry succeeded")
	}

	// With a summary: it hangs from the target and records the leaf left.
	left := tr.LeafID()
	e, err := tr.BranchWithSummary(ids[3], BranchSummary{Summary: "tried a fresh start", Files: &FileLists{ReadFiles: []string{"a.go"}}})
	if err != nil {
		t.Fatal(err)
	}
	if e.ParentID != ids[3] || e.FromID != left || tr.LeafID() != e.ID {
		t.Errorf("summary entry %+v (left %s)", e, left)
	}
	if got := texts(tr.Branch()); got != "first,one,second,two,summary:tried a fresh start" {
		t.Errorf("branch with the summary: %s", got)
	}

	// The file says the same after a reload; the leaf is its last entry.
	tr.Close()
	re, err := Load(tr.Path)
	if err != nil {
		t.Fatal(err)
	}
	if got := texts(re.Branch()); got != "first,one,second,two,summary:tried a fresh start" {
		t.Errorf("reloaded branch: %s", got)
	}
	roots := re.Tree()
	if len(roots) != 2 || roots[0].Entry.ID != ids[0] || len(roots[0].Children[0].Children) != 2 {
		t.Fatalf("tree: %d roots", len(roots))
	}
	kids := roots[0].Children[0].Children
	if kids[0].Entry.ID != ids[2] || kids[1].Entry.Message.Content.Text() != "other" {
		t.Errorf("children of the first reply are not oldest first")
	}
}

func TestSummaryFromTheRoot(t *testing.T) {
	tr, _ := treeFixture(t)
	defer tr.Close()
	e, err := tr.BranchWithSummary("", BranchSummary{Summary: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if e.ParentID != "" || !strings.Contains(string(mustJSON(t, e)), `"parentId":null`) {
		t.Errorf("summary at the root: %s", mustJSON(t, e))
	}
	tr2, _ := Create("", Header{ID: "empty"})
	e, _ = tr2.BranchWithSummary("", BranchSummary{Summary: "s"})
	if e.FromID != "root" {
		t.Errorf("fromId of a summary left from an empty session: %q", e.FromID)
	}
}

func mustJSON(t *testing.T, e Entry) []byte {
	t.Helper()
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLabelsAndName(t *testing.T) {
	tr, ids := treeFixture(t)
	defer tr.Close()
	tr.SetLabel(ids[0], "start")
	tr.SetLabel(ids[2], "mid")
	tr.SetLabel(ids[0], "")
	if err := tr.SetLabel("missing", "x"); err == nil {
		t.Error("label on a missing entry accepted")
	}
	labels := tr.Labels()
	if len(labels) != 1 || labels[ids[2]].Text != "mid" {
		t.Errorf("labels: %v", labels)
	}
	data, _ := os.ReadFile(tr.Path)
	if !strings.Contains(string(data), `{"type":"label","id":`) || strings.Contains(string(data), `"label":""`) {
		t.Errorf("a cleared label is written with an empty label:\n%s", data)
	}
	if tr.Name() != "" {
		t.Errorf("name before any: %q", tr.Name())
	}
	tr.SetName("  fix the\nparser ")
	if tr.Name() != "fix the parser" {
		t.Errorf("name: %q", tr.Name())
	}
	tr.SetName("")
	if tr.Name() != "" {
		t.Errorf("cleared name: %q", tr.Name())
	}
}

func TestFork(t *testing.T) {
	tr, ids := treeFixture(t)
	defer tr.Close()
	// A label in the middle of the chain: what follows hangs from it.
	tr.SetLeaf(ids[1])
	tr.SetLabel(ids[0], "kickoff")
	labelID := tr.LeafID()
	tr.Append(userMsg("third"))
	third := tr.LeafID()
	tr.Append(Entry{Type: TypeCompaction, Summary: "earlier", FirstKeptEntryID: labelID})
	tr.Append(userMsg("fourth"))
	fourth := tr.LeafID()

	leaf, text, err := tr.ForkTarget(fourth, false)
	if err != nil || text != "fourth" {
		t.Fatalf("fork target: %q %q %v", leaf, text, err)
	}
	if _, _, err := tr.ForkTarget(ids[1], false); err == nil {
		t.Error("fork from an assistant message accepted")
	}
	out := filepath.Join(filepath.Dir(tr.Path), "fork.jsonl")
	nt, err := tr.Fork(out, Header{ID: "f1", Cwd: "/w"}, leaf)
	if err != nil {
		t.Fatal(err)
	}
	nt.Close()
	re, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if re.Header.ParentSession != tr.Path {
		t.Errorf("parentSession %q", re.Header.ParentSession)
	}
	if got := texts(re.Snapshot()); got != "first,one,third,compaction,label" {
		t.Fatalf("fork entries: %s", got)
	}
	if re.Snapshot()[2].ID != third || re.Snapshot()[2].ParentID != ids[1] {
		t.Errorf("the entry after the label is not re-linked: %+v", re.Snapshot()[2])
	}
	if re.Snapshot()[3].FirstKeptEntryID != third {
		t.Errorf("compaction's first kept entry still names the label: %s", re.Snapshot()[3].FirstKeptEntryID)
	}
	if l := re.Snapshot()[4]; l.TargetID != ids[0] || l.Label != "kickoff" || l.ParentID != re.Snapshot()[3].ID {
		t.Errorf("label written again: %+v", l)
	}

	// Forking the first message: an empty session with its parent named.
	leaf, _, _ = tr.ForkTarget(ids[0], false)
	empty, err := tr.Fork(filepath.Join(filepath.Dir(tr.Path), "empty.jsonl"), Header{ID: "f2"}, leaf)
	if err != nil || len(empty.Snapshot()) != 0 || empty.Header.ParentSession != tr.Path {
		t.Errorf("fork of the first message: %v %+v", err, empty)
	}
	empty.Close()

	// A clone ends at the entry itself.
	leaf, _, _ = tr.ForkTarget(fourth, true)
	clone, err := tr.Fork("", Header{ID: "c"}, leaf)
	full, ferr := clone.FullBranch()
	if err != nil || ferr != nil || texts(full) != "first,one,third,compaction,fourth,label" {
		t.Errorf("clone: %v %v %s", err, ferr, texts(full))
	}
	// What requests need leaves out what the compaction summarised away.
	if got := texts(clone.Branch()); got != "third,compaction,fourth,label" {
		t.Errorf("clone's branch for requests: %s", got)
	}
	if got := len(tr.ForkMessages()); got != 4 {
		t.Errorf("fork messages: %d", got)
	}
}

func TestCopyInto(t *testing.T) {
	tr, _ := treeFixture(t)
	tr.Close()
	out := filepath.Join(t.TempDir(), "copy.jsonl")
	nt, err := CopyInto(tr.Path, out, Header{ID: "copy", Cwd: "/elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	nt.Close()
	a, _ := os.ReadFile(tr.Path)
	b, _ := os.ReadFile(out)
	body := func(d []byte) string { _, rest, _ := strings.Cut(string(d), "\n"); return rest }
	if body(a) != body(b) {
		t.Errorf("copied entries differ")
	}
	re, _ := Load(out)
	if re.Header.ID != "copy" || re.Header.Cwd != "/elsewhere" || re.Header.ParentSession != tr.Path {
		t.Errorf("header %+v", re.Header)
	}
}

func TestStats(t *testing.T) {
	tr, _ := treeFixture(t)
	defer tr.Close()
	m := prompt.Message{Role: "assistant", Content: prompt.Content{Blocks: []prompt.Block{{Type: "toolCall", ID: "c1", Name: "ls"}}},
		Usage: &prompt.Usage{Input: 10, Output: 5, CacheRead: 3, Cost: prompt.Cost{Total: 0.5}}}
	tr.Append(Entry{Type: TypeMessage, Message: &m})
	tr.BranchWithSummary("", BranchSummary{Summary: "s", Usage: &prompt.Usage{Input: 1, Output: 1, Cost: prompt.Cost{Total: 0.25}}})
	s := tr.Stats()
	if s.UserMessages != 2 || s.AssistantMessages != 3 || s.ToolCalls != 1 || s.TotalMessages != 5 {
		t.Errorf("counts %+v", s)
	}
	if s.Tokens.Input != 11 || s.Tokens.Total != 20 || s.Cost != 0.75 {
		t.Errorf("totals %+v", s)
	}
}
