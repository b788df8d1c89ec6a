package session

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/piwasm/pi/core/provider"
)

// checkView compares what the transcript keeps up to date with what
// History and Messages work out from the branch.
func checkView(t *testing.T, tr *Transcript, step string) {
	t.Helper()
	branch := tr.Branch()
	if want := tr.computeBranch(); !reflect.DeepEqual(branch, want) && !(len(branch) == 0 && len(want) == 0) {
		t.Fatalf("%s: branch of %d entries, want %d", step, len(branch), len(want))
	}
	want := History(branch)
	if got := tr.history(); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Fatalf("%s: history differs:\n got %+v\nwant %+v", step, got, want)
	}
	for _, forced := range []*string{nil, func() *string { s := "forced prompt"; return &s }()} {
		wantMsgs := Messages(want, forced)
		got := tr.requestMessages(forced)
		stripped := make([]provider.Message, len(got))
		for i, m := range got {
			if m.Memo == nil && (forced == nil || i > 0) {
				t.Fatalf("%s: message %d has no memo", step, i)
			}
			m.Memo = nil
			stripped[i] = m
		}
		if !reflect.DeepEqual(stripped, wantMsgs) && !(len(stripped) == 0 && len(wantMsgs) == 0) {
			t.Fatalf("%s (forced %v): request messages differ:\n got %+v\nwant %+v", step, forced != nil, stripped, wantMsgs)
		}
	}
	prov, model, level := tr.routeRecord()
	var wp, wm, wl string
	for _, e := range branch {
		switch e.Type {
		case TypeModelChange:
			wp, wm = e.Provider, e.ModelID
		case TypeThinkingChange:
			wl = e.ThinkingLevel
		}
	}
	if prov != wp || model != wm || level != wl {
		t.Fatalf("%s: route record %s/%s/%s, want %s/%s/%s", step, prov, model, level, wp, wm, wl)
	}
}

// The view the request path reads agrees with History after every entry of
// the peer's sessions (compactions, tool calls, model changes), appended
// one by one, and after moves on the tree.
func TestViewFollowsHistory(t *testing.T) {
	files, _ := filepath.Glob("testdata/peer/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no sessions in testdata/peer")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			tr := &Transcript{Header: src.Header}
			for i, e := range src.Snapshot() {
				if err := tr.Append(e); err != nil {
					t.Fatal(err)
				}
				checkView(t, tr, "entry "+e.ID)
				if i%7 == 3 && e.ParentID != "" {
					// Step back on the tree, look, and come back.
					if err := tr.SetLeaf(e.ParentID); err != nil {
						t.Fatal(err)
					}
					checkView(t, tr, "back to "+e.ParentID)
					if err := tr.SetLeaf(e.ID); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}

// A session pi writes itself (system message, projection, context, tool
// calls, a changed prompt on the second turn) agrees too.
func TestViewFollowsOwnSession(t *testing.T) {
	m := newMockModel(t)
	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, "AGENTS.md"), "Use tabs.")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	r := newRunner(t, proj, path, openaiRoute(m.srv.URL), nil)
	if _, err := r.Turn(context.Background(), Input{Text: "hello"}, false); err != nil {
		t.Fatal(err)
	}
	checkView(t, r.Transcript, "first turn")
	if err := os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("Use spaces."), 0o644); err != nil {
		t.Fatal(err)
	}
	r = newRunner(t, proj, path, openaiRoute(m.srv.URL), nil)
	checkView(t, r.Transcript, "reopened")
	if _, err := r.Turn(context.Background(), Input{Text: "again"}, false); err != nil {
		t.Fatal(err)
	}
	checkView(t, r.Transcript, "second turn")
}
