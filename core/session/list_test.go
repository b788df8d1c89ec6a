package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// listFixture writes a session file the way the established harness lays
// them out: header, then entries; msgs are role/text pairs timed a second
// apart from start.
func listFixture(t testing.TB, dir, cwd, id string, start time.Time, msgs [][2]string, extra ...map[string]any) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stamp := start.UTC().Format("2006-01-02T15:04:05.000Z")
	lines := []any{map[string]any{"type": "session", "version": 3, "id": id, "timestamp": stamp, "cwd": cwd}}
	parent := any(nil)
	for i, m := range msgs {
		at := start.Add(time.Duration(i+1) * time.Second)
		eid := fmt.Sprintf("%s%04d", id[:4], i)
		lines = append(lines, map[string]any{"type": "message", "id": eid, "parentId": parent, "timestamp": at.UTC().Format(time.RFC3339Nano),
			"message": map[string]any{"role": m[0], "content": []any{map[string]any{"type": "text", "text": m[1]}}, "timestamp": at.UnixMilli()}})
		parent = eid
	}
	for _, e := range extra {
		lines = append(lines, e)
	}
	var b strings.Builder
	for _, l := range lines {
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	p := filepath.Join(dir, strings.ReplaceAll(stamp, ":", "-")+"_"+id+".jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestListOrderAndFields(t *testing.T) {
	root := t.TempDir()
	cwd := "/work/proj"
	dir := Dir(root, cwd)
	now := time.Now()
	// Started first, but talked in last: listed first (activity, not
	// the file name, orders the list).
	old := listFixture(t, dir, cwd, "aaaa0001", now.Add(-72*time.Hour), [][2]string{{"user", "old start"}, {"assistant", "a"}},
		map[string]any{"type": "message", "id": "late", "parentId": "aaaa0001", "timestamp": now.UTC().Format(time.RFC3339Nano),
			"message": map[string]any{"role": "user", "content": "resumed today", "timestamp": now.Add(-time.Minute).UnixMilli()}})
	named := listFixture(t, dir, cwd, "bbbb0002", now.Add(-2*time.Hour), [][2]string{{"user", "write the lexer"}, {"assistant", "ok"}, {"toolResult", "out"}},
		map[string]any{"type": "session_info", "id": "n1", "timestamp": "x", "name": "first name"},
		map[string]any{"type": "session_info", "id": "n2", "timestamp": "x", "name": "  lexer work "})
	cleared := listFixture(t, dir, cwd, "cccc0003", now.Add(-3*time.Hour), [][2]string{{"user", "gamma"}},
		map[string]any{"type": "session_info", "id": "n3", "timestamp": "x", "name": "gone"},
		map[string]any{"type": "session_info", "id": "n4", "timestamp": "x", "name": ""})
	empty := listFixture(t, dir, cwd, "dddd0004", now.Add(-4*time.Hour), nil)
	// Another directory's session in the same folder (two directories
	// can share a folder name) is left out of cwd's list.
	listFixture(t, dir, "/work/other", "eeee0005", now.Add(-time.Hour), [][2]string{{"user", "elsewhere"}})
	os.WriteFile(filepath.Join(dir, "notes.jsonl"), []byte(`{"type":"message"}`+"\n"), 0o644)
	otherDir := Dir(root, "/work/two")
	two := listFixture(t, otherDir, "/work/two", "ffff0006", now.Add(-30*time.Minute), [][2]string{{"user", "two"}})

	l := OpenLister("")
	got := l.List(dir, cwd)
	want := []struct {
		path, name, first string
		msgs              int
	}{
		{old, "", "old start", 3},
		{named, "lexer work", "write the lexer", 3},
		{cleared, "", "gamma", 1},
		{empty, "", "", 0},
	}
	if len(got) != len(want) {
		t.Fatalf("listed %d sessions, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Path != w.path || g.Name != w.name || g.FirstMessage != w.first || g.Messages != w.msgs {
			t.Errorf("row %d = %s %q %q %d, want %s %q %q %d", i, filepath.Base(g.Path), g.Name, g.FirstMessage, g.Messages, filepath.Base(w.path), w.name, w.first, w.msgs)
		}
	}
	if d := time.Since(got[0].Modified); d < 50*time.Second || d > 70*time.Second {
		t.Errorf("modified = %v ago, want the latest message's time (a minute ago)", d)
	}
	if !got[3].Modified.Equal(got[3].Created) {
		t.Errorf("a session without messages is dated by its header: %v, %v", got[3].Modified, got[3].Created)
	}
	all := l.ListAll(dir)
	if len(all) != 6 || all[0].Path != old || all[1].Path != two {
		var names []string
		for _, s := range all {
			names = append(names, filepath.Base(s.Path))
		}
		t.Errorf("every directory's sessions = %v", names)
	}
}

func TestListerReadsOnlyWhatWasAppended(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	p := listFixture(t, dir, "/w", "aaaa0001", now.Add(-time.Hour), [][2]string{{"user", "hello"}, {"assistant", strings.Repeat("x", 100_000)}})
	size := func() int64 { fi, _ := os.Stat(p); return fi.Size() }
	index := filepath.Join(t.TempDir(), "index.json")
	l := OpenLister(index)
	if s := l.List(dir, ""); len(s) != 1 || s[0].Messages != 2 {
		t.Fatalf("first listing: %+v", s)
	}
	if l.Read != size() {
		t.Fatalf("the first listing read %d bytes of %d", l.Read, size())
	}
	if err := l.Save(); err != nil {
		t.Fatal(err)
	}
	// A new run with the saved index reads nothing of an unchanged file.
	l = OpenLister(index)
	if s := l.List(dir, ""); len(s) != 1 || s[0].Messages != 2 || s[0].FirstMessage != "hello" {
		t.Fatalf("listing from the index: %+v", s)
	}
	if l.Read != 0 {
		t.Fatalf("an unchanged file was read again: %d bytes", l.Read)
	}
	// An appended entry is all that is read next time.
	line := `{"type":"session_info","id":"n1","parentId":null,"timestamp":"x","name":"grown"}` + "\n"
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(line)
	f.Close()
	before := l.Read
	if s := l.List(dir, ""); len(s) != 1 || s[0].Name != "grown" || s[0].Messages != 2 {
		t.Fatalf("after an append: %+v", s)
	}
	if read := l.Read - before; read > int64(len(line)+tailLen) {
		t.Fatalf("an append of %d bytes cost a read of %d", len(line), read)
	}
	// A file replaced by another (same name, new content) is read whole.
	listFixture(t, dir, "/w", "aaaa0001", now.Add(-time.Hour), [][2]string{{"user", "replaced"}, {"assistant", strings.Repeat("y", 100_100)}, {"user", "three"}})
	if s := l.List(dir, ""); len(s) != 1 || s[0].FirstMessage != "replaced" || s[0].Messages != 3 || s[0].Name != "" {
		t.Fatalf("after a rewrite: %+v", s)
	}
}

func TestMessageText(t *testing.T) {
	dir := t.TempDir()
	p := listFixture(t, dir, "/w", "aaaa0001", time.Now(), [][2]string{{"user", "find the zebra"}, {"toolResult", "hidden"}, {"assistant", "striped"}})
	got, err := MessageText(p)
	if err != nil || got != "find the zebra striped" {
		t.Fatalf("MessageText = %q, %v", got, err)
	}
}

// BenchmarkList1000 lists a thousand session files of ~20 KiB each, warm
// (the index from an earlier listing) and cold.
func BenchmarkList1000(b *testing.B) {
	dir := b.TempDir()
	now := time.Now()
	var msgs [][2]string
	for i := range 40 {
		msgs = append(msgs, [2]string{"user", fmt.Sprintf("question %d %s", i, strings.Repeat("q", 200))}, [2]string{"assistant", strings.Repeat("a", 300)})
	}
	for i := range 1000 {
		listFixture(b, dir, "/w", fmt.Sprintf("%08d", i), now.Add(-time.Duration(i)*time.Minute), msgs)
	}
	index := filepath.Join(b.TempDir(), "index.json")
	warm := OpenLister(index)
	warm.List(dir, "/w")
	if err := warm.Save(); err != nil {
		b.Fatal(err)
	}
	b.Run("cold", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			l := OpenLister("")
			if n := len(l.List(dir, "/w")); n != 1000 {
				b.Fatal(n)
			}
			b.ReportMetric(float64(l.Read), "bytes-read/op")
		}
	})
	b.Run("warm", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			l := OpenLister(index)
			if n := len(l.List(dir, "/w")); n != 1000 {
				b.Fatal(n)
			}
			b.ReportMetric(float64(l.Read), "bytes-read/op")
		}
	})
}

// FuzzListSummary: any bytes as a session file list without a panic, and
// reading them in two pieces (a listing, an append, a listing) gives what
// reading them whole gives.
func FuzzListSummary(f *testing.F) {
	f.Add([]byte(`{"type":"session","id":"a","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`+"\n"), []byte(`{"type":"message","message":{"role":"user","content":"hi","timestamp":5}}`+"\n"))
	f.Add([]byte(`{"type":"session","cwd":7}`), []byte("\n{\"type\":\"session_info\",\"name\":\"n\"}"))
	f.Add([]byte("not json\n"), []byte(`{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"x"}]}}`))
	f.Fuzz(func(t *testing.T, first, rest []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "s.jsonl")
		os.WriteFile(p, first, 0o644)
		l := OpenLister("")
		l.Summary(p)
		fh, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		fh.Write(rest)
		fh.Close()
		got, gotOK := l.Summary(p)
		want, wantOK := OpenLister("").Summary(p)
		if gotOK != wantOK || got != want {
			t.Fatalf("read in pieces %+v %v, whole %+v %v", got, gotOK, want, wantOK)
		}
	})
}

func TestListerLastLineWithoutNewline(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(`{"type":"session","id":"a","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}`+"\n"+`{"type":"message","message":{"role":"user","content":"hi"}}`), 0o644)
	l := OpenLister("")
	for range 2 { // the second time from what the first remembered
		if s, ok := l.Summary(p); !ok || s.Messages != 1 || s.FirstMessage != "hi" {
			t.Fatalf("a last line without its newline: %+v", s)
		}
	}
}
