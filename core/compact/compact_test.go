package compact

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
)

// fakeModel answers summary requests with "## Goal\nSUMMARY-n\n" (n
// counting from first), as the fixture model the established harness's
// sessions were recorded against did, and keeps the requests.
type fakeModel struct {
	n    int
	reqs []provider.Request
}

func (f *fakeModel) complete(_ context.Context, req provider.Request) (provider.Response, error) {
	f.n++
	f.reqs = append(f.reqs, req)
	return provider.Response{Text: fmt.Sprintf("## Goal\nSUMMARY-%d\n", f.n), StopReason: "stop", Usage: provider.Usage{InputTokens: 5000, OutputTokens: 5}}, nil
}

func load(t *testing.T, name string) *session.Transcript {
	t.Helper()
	tr, err := session.Load(filepath.Join("..", "session", "testdata", "peer", name))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestSameCompactionsAsTheEstablishedHarness replays the established
// harness's session with three automatic compactions (keepRecentTokens
// 60): at each point where it compacted, Prepare picks the same first kept
// entry, split turn and context size, and Summarize, fed the same model
// replies, stores the same summary text (split-turn framing, the previous
// summary folded in, the file lists carried over) and file lists.
func TestSameCompactionsAsTheEstablishedHarness(t *testing.T) {
	tr := load(t, "compacted-auto.jsonl")
	branch := fullBranch(t, tr)
	f := &fakeModel{}
	seen := 0
	for i, e := range branch {
		if e.Type != session.TypeCompaction {
			continue
		}
		seen++
		p := Prepare(branch[:i], 60, false)
		if p == nil {
			t.Fatalf("compaction %d: nothing to compact", seen)
		}
		if p.FirstKeptEntryID != e.FirstKeptEntryID || p.TokensBefore != e.TokensBefore {
			t.Errorf("compaction %d: keeps from %s (%d tokens before), the established harness from %s (%d)", seen, p.FirstKeptEntryID, p.TokensBefore, e.FirstKeptEntryID, e.TokensBefore)
		}
		r, err := Summarize(context.Background(), p, Model{Complete: f.complete, ModelID: "mock-1", MaxTokens: 1000}, "")
		if err != nil {
			t.Fatal(err)
		}
		if r.Summary != e.Summary {
			t.Errorf("compaction %d summary:\n%q\nwant\n%q", seen, r.Summary, e.Summary)
		}
		if !reflect.DeepEqual(r.Files, *e.Files) {
			t.Errorf("compaction %d files %+v, want %+v", seen, r.Files, *e.Files)
		}
	}
	if seen != 3 {
		t.Fatalf("%d compactions in the fixture", seen)
	}
	// The serialised conversation of the first (split-turn) request, as
	// the established harness sent it.
	first := f.reqs[0].Messages[1].Parts[0].Text
	want := "# Conversation\n[User]: first message READ the notes\n\n[Assistant tool calls]: read(path=\"notes.txt\")\n\n[Tool result]: alpha\nbeta\ngamma\n\n\n# Instructions\n"
	if !strings.HasPrefix(first, want) {
		t.Errorf("first summary request:\n%q\nwant prefix\n%q", first, want)
	}
	second := f.reqs[1].Messages[1].Parts[0].Text
	if !strings.HasPrefix(second, "<conversation>\n[Assistant]: Reply to: alpha\nbeta\ngamma\n\n</conversation>\n\n<previous-summary>\nNo prior history.") {
		t.Errorf("second summary request does not fold in the first:\n%q", second)
	}
	for _, r := range f.reqs {
		if len(r.Tools) != 0 || r.CacheRetention != provider.CacheNone || r.Messages[0].Role != provider.RoleSystem {
			t.Errorf("summary request with tools, cache writes or no system prompt: %+v", r)
		}
	}
}

// TestManualCompactionWithFocus: the established harness's /compact with
// instructions on a small session keeps from the same entry, and the focus
// ends the request.
func TestManualCompactionWithFocus(t *testing.T) {
	tr := load(t, "compacted-manual.jsonl")
	branch := fullBranch(t, tr)
	for i, e := range branch {
		if e.Type != session.TypeCompaction {
			continue
		}
		p := Prepare(branch[:i], 5, false)
		if p == nil || p.FirstKeptEntryID != e.FirstKeptEntryID {
			t.Fatalf("prepare %+v, want first kept %s", p, e.FirstKeptEntryID)
		}
		f := &fakeModel{n: 3}
		r, err := Summarize(context.Background(), p, Model{Complete: f.complete}, "focus on the tests")
		if err != nil {
			t.Fatal(err)
		}
		if r.Summary != e.Summary {
			t.Errorf("summary %q, want %q", r.Summary, e.Summary)
		}
		if text := f.reqs[0].Messages[1].Parts[0].Text; !strings.HasSuffix(text, "\n\nAdditional focus: focus on the tests") {
			t.Errorf("the focus is not passed on: %q", text[len(text)-80:])
		}
	}
}

// TestOverflowRecoveryCut: after an overflow, the failed attempt (omitted
// by a context edit) does not hold the cut back.
func TestOverflowRecoveryCut(t *testing.T) {
	tr := load(t, "compacted-overflow.jsonl")
	branch := fullBranch(t, tr)
	for i, e := range branch {
		if e.Type != session.TypeCompaction {
			continue
		}
		p := Prepare(branch[:i], 5, true)
		if p == nil || p.FirstKeptEntryID != e.FirstKeptEntryID || p.TokensBefore != e.TokensBefore {
			t.Fatalf("prepare %+v, want first kept %s, %d tokens", p, e.FirstKeptEntryID, e.TokensBefore)
		}
	}
}

func TestNothingToCompact(t *testing.T) {
	tr := load(t, "compacted-auto.jsonl")
	branch := fullBranch(t, tr)
	if p := Prepare(branch, 60, false); p != nil {
		t.Fatalf("a branch that ends with a compaction compacted again: %+v", p)
	}
	if p := Prepare(branch[:5], 1<<20, false); p != nil {
		t.Fatalf("everything is recent, yet: %+v", p)
	}
}

func TestSettings(t *testing.T) {
	s, err := Parse([]byte(`{"enabled":false,"reserveTokens":100,"modelOverrides":{"p/m":{"keepRecentTokens":7}}}`), "p", "m")
	if err != nil || s != (Settings{Enabled: false, ReserveTokens: 100, KeepRecentTokens: 7}) {
		t.Fatalf("%+v %v", s, err)
	}
	if _, err := Parse([]byte(`{"reserveTokens":-1}`), "p", "m"); err == nil || !strings.Contains(err.Error(), "compaction.reserveTokens") {
		t.Fatalf("a negative reserve: %v", err)
	}
	if !Defaults.ShouldCompact(128000-16384+1, 128000) || Defaults.ShouldCompact(128000-16384, 128000) {
		t.Fatal("threshold")
	}
}

// fullBranch is the whole active branch, what the compactions recorded
// in it saw before they ran (Branch leaves out what the latest one
// summarised away).
func fullBranch(t *testing.T, tr *session.Transcript) []session.Entry {
	t.Helper()
	b, err := tr.FullBranch()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
