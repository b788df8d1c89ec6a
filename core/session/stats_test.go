package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/piwasm/pi/core/prompt"
)

// indexFixture writes a session that compacted and branched, so that most
// of its entries are not kept in memory once loaded, and returns its path.
func indexFixture(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	tr, err := Create(path, Header{ID: "idx", Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for i := 0; i < 40; i++ {
		users = append(users, mustAppend(t, tr, userMsg(fmt.Sprintf("question %d", i))))
		m := prompt.Message{Role: "assistant", StopReason: "toolUse",
			Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: fmt.Sprint("answer ", i)}, {Type: "toolCall", ID: fmt.Sprint("c", i), Name: "ls"}}},
			Usage:   &prompt.Usage{Input: 100 + i, Output: 10, CacheRead: 3, Cost: prompt.Cost{Total: 0.125}}}
		mustAppend(t, tr, Entry{Type: TypeMessage, Message: &m})
		r := prompt.Message{Role: "toolResult", ToolCallID: fmt.Sprint("c", i), Content: prompt.TextContent("a.go")}
		mustAppend(t, tr, Entry{Type: TypeMessage, Message: &r})
	}
	mustAppend(t, tr, Entry{Type: TypeCompaction, Summary: "summary", FirstKeptEntryID: users[35], TokensBefore: 900,
		Usage: &prompt.Usage{Input: 7, Output: 2, Cost: prompt.Cost{Total: 0.25}}})
	mustAppend(t, tr, userMsg("after"))
	if err := tr.SetLeaf(users[3]); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, tr, assistantMsg("another answer"))
	if err := tr.SetLabel(users[1], "start"); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStatsFromTheIndex: a loaded session's statistics count every entry
// of the file (those not in memory included) without reading any back:
// they are the same after the file is gone.
func TestStatsFromTheIndex(t *testing.T) {
	path := indexFixture(t)
	tr, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if in, all := tr.InMemory(), tr.Len(); in*2 > all {
		t.Fatalf("%d of %d entries in memory: the fixture does not exercise reading back", in, all)
	}
	entries, err := tr.Entries()
	if err != nil {
		t.Fatal(err)
	}
	var want Stats
	for i := range entries {
		want.count(&entries[i])
	}
	want.Tokens.Total = want.Tokens.Input + want.Tokens.Output + want.Tokens.CacheRead + want.Tokens.CacheWrite
	if want.UserMessages != 41 || want.AssistantMessages != 41 || want.ToolCalls != 40 || want.ToolResults != 40 || want.Cost != 5.25 {
		t.Fatalf("counted over the file: %+v", want)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if got := tr.Stats(); got != want {
		t.Errorf("stats without the file\n%+v\nwant\n%+v", got, want)
	}
}

// TestTreeLines: the tree written out for RPC from the index and the
// entries' lines is the decoded tree's JSON, labels and branches included,
// and costs a fraction of its allocations (entries are not decoded).
func TestTreeLines(t *testing.T) {
	tr, err := Load(indexFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	full, lines := tr.Tree(), tr.TreeLines()
	a, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(lines)
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != string(b) {
		t.Fatalf("tree from lines\n%s\ndecoded\n%s", b, a)
	}
	// Down the first branch: question 1 carries the label, question 3 has
	// two answers (the one the compaction summarised, and the new one).
	var path []*TreeNode
	for n := lines; len(n) > 0; n = n[0].Children {
		path = append(path, n[0])
	}
	if len(lines) != 1 || len(path) != 3*40+2 || path[3].Label != "start" || len(path[9].Children) != 2 {
		t.Fatalf("tree shape: %d roots, %d deep", len(lines), len(path))
	}
	if e := path[9].Children[1].Entry; e.Raw == nil || !json.Valid(e.Raw) {
		t.Fatalf("the new answer: %+v", e)
	}
	decoded := testing.AllocsPerRun(5, func() { tr.Tree() })
	raw := testing.AllocsPerRun(5, func() { tr.TreeLines() })
	if raw*3 > decoded {
		t.Errorf("TreeLines made %.0f allocations, Tree %.0f: entries are decoded", raw, decoded)
	}
}
