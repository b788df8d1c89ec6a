package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/piwasm/pi/core/prompt"
)

// requestOf is what a request built from entries carries: its messages,
// and its system nodes with their numbers (which later projections refer
// to).
func requestOf(t *testing.T, entries []Entry) string {
	t.Helper()
	h := History(entries)
	b, err := json.Marshal(struct {
		M any
		S any
	}{Messages(h, nil), SystemNodes(h)})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameRequest checks that the branch kept for requests rebuilds the
// request the whole branch does.
func sameRequest(t *testing.T, tr *Transcript, when string) {
	t.Helper()
	full, err := tr.FullBranch()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := requestOf(t, tr.Branch()), requestOf(t, full); got != want {
		t.Fatalf("%s: the request from the branch kept in memory differs from the whole branch's:\n%s\nwant\n%s", when, got, want)
	}
}

func sysMsg(text string) Entry {
	m := prompt.Message{Role: "system", Content: prompt.TextContent(""), Sections: prompt.Patches{{Name: "base", Text: prompt.Str(text)}}}
	return Entry{Type: TypeMessage, Message: &m}
}

func assistantMsg(text string) Entry {
	m := prompt.Message{Role: "assistant", Content: prompt.Content{Blocks: []prompt.Block{{Type: "text", Text: text}}}, StopReason: "stop"}
	return Entry{Type: TypeMessage, Message: &m}
}

func mustAppend(t *testing.T, tr *Transcript, e Entry) string {
	t.Helper()
	if err := tr.Append(e); err != nil {
		t.Fatal(err)
	}
	return tr.LeafID()
}

// lastSystemSeq is the number of the last system node of the whole
// branch's history.
func lastSystemSeq(t *testing.T, tr *Transcript) int {
	t.Helper()
	full, err := tr.FullBranch()
	if err != nil {
		t.Fatal(err)
	}
	nodes := SystemNodes(History(full))
	return nodes[len(nodes)-1].Seq
}

// TestCompactedEntriesLeaveMemory: a session that compacts twice keeps in
// memory only what its requests need, and loses nothing: the request from
// what it keeps equals the request from the whole branch (a projection
// after the compactions that rewrites a system node by its number
// included), every entry reads back byte for byte, and moving to an entry
// the compaction summarised away reads that branch back.
func TestCompactedEntriesLeaveMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	tr, err := Create(path, Header{ID: "mem", Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, tr, sysMsg("You are pi."))
	mustAppend(t, tr, Entry{Type: TypeProjection, Commits: []ProjectionCommit{{Op: prompt.OpAppend, Text: "You are pi."}}, InHistory: true})
	mustAppend(t, tr, Entry{Type: TypeContext, Text: "cwd /w"})
	var users []string
	turn := func(n int) {
		for i := 0; i < n; i++ {
			users = append(users, mustAppend(t, tr, userMsg(fmt.Sprintf("question %d", len(users)))))
			mustAppend(t, tr, Entry{Type: TypeRequest, Route: "mock/m1", API: "openai-completions"})
			mustAppend(t, tr, assistantMsg(fmt.Sprintf("answer %d", len(users)-1)))
		}
	}
	turn(6)
	sameRequest(t, tr, "before any compaction")
	mustAppend(t, tr, Entry{Type: TypeCompaction, Summary: "first summary", FirstKeptEntryID: users[4], TokensBefore: 900})
	turn(2)
	// A prompt change after the compaction: a new system node, then one
	// that rewrites it by its number.
	mustAppend(t, tr, sysMsg("You are pi, now with tests."))
	mustAppend(t, tr, Entry{Type: TypeProjection, Commits: []ProjectionCommit{{Op: prompt.OpAppend, Text: "You are pi, now with tests."}}, InHistory: true})
	seq := lastSystemSeq(t, tr)
	turn(3)
	mustAppend(t, tr, Entry{Type: TypeProjection, Commits: []ProjectionCommit{{Op: prompt.OpReplace, Seq: seq, Text: "You are pi, rewritten."}}, InHistory: true})
	turn(2)
	sameRequest(t, tr, "after one compaction")
	mustAppend(t, tr, Entry{Type: TypeCompaction, Summary: "second summary", FirstKeptEntryID: users[11], TokensBefore: 1200})
	last := mustAppend(t, tr, userMsg("after the second compaction"))
	sameRequest(t, tr, "after two compactions")
	if in, all := tr.InMemory(), tr.Len(); in*2 > all {
		t.Errorf("%d of %d entries still in memory after two compactions", in, all)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}

	// Nothing lost: every entry reads back as written, loaded or not.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))[1:]
	for _, load := range []func(string) (*Transcript, error){Load, OpenAppend} {
		re, err := load(path)
		if err != nil {
			t.Fatal(err)
		}
		if in, all := re.InMemory(), re.Len(); in*2 > all || all != len(lines) {
			t.Errorf("loaded: %d of %d entries in memory (file has %d)", in, all, len(lines))
		}
		entries, err := re.Entries()
		if err != nil || len(entries) != len(lines) {
			t.Fatalf("entries: %d, %v", len(entries), err)
		}
		for i, e := range entries {
			if b, _ := json.Marshal(e); !bytes.Equal(b, lines[i]) {
				t.Errorf("entry %d reads back as\n%s\nwritten\n%s", i, b, lines[i])
			}
		}
		sameRequest(t, re, "loaded")
		if e, ok := re.Lookup(users[0]); !ok || e.Message == nil || e.Message.Content.Text() != "question 0" {
			t.Errorf("a summarised entry does not read back: %+v %v", e, ok)
		}
		if got := len(re.PathTo(last)); got != len(lines) {
			t.Errorf("path to the leaf has %d entries, want %d", got, len(lines))
		}
		re.Close()
	}

	// Continue on a branch from before the first compaction: what it
	// needs comes back from the file.
	re, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	defer re.Close()
	if err := re.SetLeaf(users[2]); err != nil {
		t.Fatal(err)
	}
	b := re.Branch()
	if got := b[len(b)-1]; got.ID != users[2] || got.Message == nil || got.Message.Content.Text() != "question 2" {
		t.Fatalf("branch after moving to an old entry ends in %+v", got)
	}
	mustAppend(t, re, assistantMsg("a different answer"))
	sameRequest(t, re, "on an old branch")
	if got := ContextMessages(re.Branch()); len(got) != 6 || got[5].Content.Text() != "a different answer" {
		t.Errorf("messages of the old branch: %+v", got)
	}
	if n := re.Branches(); n != 2 {
		t.Errorf("%d branches, want 2", n)
	}
}

// TestEstablishedHarnessCompactionsFromMemory: for the established
// harness's compacted sessions, the branch kept in memory rebuilds the same
// request as the whole branch.
func TestEstablishedHarnessCompactionsFromMemory(t *testing.T) {
	for _, name := range []string{"compacted-auto.jsonl", "compacted-manual.jsonl", "compacted-overflow.jsonl"} {
		t.Run(name, func(t *testing.T) {
			tr, err := Load(filepath.Join("testdata", "peer", name))
			if err != nil {
				t.Fatal(err)
			}
			if tr.InMemory() >= tr.Len() {
				t.Errorf("all %d entries kept in memory", tr.Len())
			}
			sameRequest(t, tr, name)
			full, _ := tr.FullBranch()
			if !reflect.DeepEqual(ContextMessages(tr.Branch()), ContextMessages(full)) {
				t.Error("get_messages differs")
			}
		})
	}
}

// TestIDIndex: ids of the usual shape and others are found, and the text
// of a kept id is the id.
func TestIDIndex(t *testing.T) {
	tr := &Transcript{}
	for _, id := range []string{"0a1b2c3d", "ffffffff", "not-hex!", "0A1B2C3D", "1234567"} {
		tr.add(Entry{Type: TypeLabel, ID: id}, -1, 0)
	}
	for i, want := range []string{"0a1b2c3d", "ffffffff", "not-hex!", "0A1B2C3D", "1234567"} {
		if got := tr.id(i); got != want {
			t.Errorf("id %d = %q, want %q", i, got, want)
		}
		if j, ok := tr.ids.find(want); !ok || int(j) != i {
			t.Errorf("find(%q) = %d %v", want, j, ok)
		}
	}
	if _, ok := tr.ids.find("00000000"); ok {
		t.Error("found an id not there")
	}
}

// FuzzReadBack: a session file loaded from disk (entries left out of
// memory, read back on demand) gives the same entries as the same bytes
// parsed in memory, and the branch kept for requests rebuilds the request
// the whole branch does.
func FuzzReadBack(f *testing.F) {
	for _, name := range []string{"compacted-manual.jsonl", "compacted-auto.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", "peer", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("{\"type\":\"session\",\"version\":3,\"id\":\"s\"}\n" +
		"{\"type\":\"message\",\"id\":\"0000000a\",\"parentId\":null,\"message\":{\"role\":\"user\",\"content\":\"a\"}}\n" +
		"  {\"type\":\"message\",\"id\":\"0000000b\",\"parentId\":\"0000000a\",\"message\":{\"role\":\"assistant\",\"content\":\"b\"}}  \r\n" +
		"{\"type\":\"compaction\",\"id\":\"X-1\",\"parentId\":\"0000000b\",\"summary\":\"s\",\"firstKeptEntryId\":\"0000000b\"}\n" +
		"{\"type\":\"message\",\"id\":\"0000000c\",\"parentId\":\"X-1\",\"message\":{\"role\":\"user\",\"content\":\"c\"}}"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		mem, err := Parse(data)
		if err != nil {
			return
		}
		path := filepath.Join(dir, "s.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		disk, err := Load(path)
		if err != nil {
			t.Fatalf("Parse accepted what Load refused: %v", err)
		}
		want, got := mem.Snapshot(), disk.Snapshot()
		if len(got) != len(want) {
			t.Fatalf("%d entries read back, %d parsed", len(got), len(want))
		}
		for i := range want {
			a, _ := json.Marshal(want[i])
			b, _ := json.Marshal(got[i])
			if !bytes.Equal(a, b) {
				t.Fatalf("entry %d reads back as\n%s\nparsed\n%s", i, b, a)
			}
		}
		full, err := disk.FullBranch()
		if err != nil {
			t.Fatal(err)
		}
		if a, b := requestOf(t, disk.Branch()), requestOf(t, full); a != b {
			t.Fatalf("the branch kept in memory rebuilds\n%s\nthe whole branch\n%s", a, b)
		}
	})
}
