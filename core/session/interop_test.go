package session

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/provider"
)

// TestContinueASessionOfTheEstablishedHarness: a session file written by
// the established harness 1.6.0 (a tool-using run: reads, a failed bash,
// an unknown tool, edits, a write) loads without problems, and a turn
// appended by pi carries its whole history — our prompt at the head, then
// every message with its tool calls and results — and hangs from its last
// entry, so that harness keeps the history when it continues.
func TestContinueASessionOfTheEstablishedHarness(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "peer", "tool-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	tr, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Problems) != 0 || tr.Header.Version != 3 {
		t.Fatalf("problems %v, version %d", tr.Problems, tr.Header.Version)
	}
	if !Foreign(tr.Branch()) {
		t.Fatal("a session of the other harness is not recognised as such")
	}
	lastID := tr.Snapshot()[len(tr.Snapshot())-1].ID
	tr.Close()

	m := newMockModel(t)
	r := newRunner(t, t.TempDir(), path, openaiRoute(m.srv.URL), nil)
	if _, err := r.Turn(context.Background(), Input{Text: "what changed?"}, false); err != nil {
		t.Fatal(err)
	}
	body := m.last(t)
	msgs := body["messages"].([]any)
	roles := []string{}
	calls := 0
	for _, x := range msgs {
		mm := x.(map[string]any)
		roles = append(roles, mm["role"].(string))
		if tc, ok := mm["tool_calls"].([]any); ok {
			calls += len(tc)
		}
	}
	if roles[0] != "system" || !strings.HasPrefix(msgs[0].(map[string]any)["content"].(string), "You are pi") {
		t.Errorf("the head is not pi's prompt: %v", msgs[0])
	}
	if n := strings.Count(strings.Join(roles, " "), "tool"); n != 7 || calls != 7 {
		t.Errorf("want 7 tool calls and 7 results, got %d calls, roles %v", calls, roles)
	}
	if roles[len(roles)-1] != "user" || strings.Count(strings.Join(roles, " "), "system") != 1 {
		t.Errorf("roles %v", roles)
	}
	// The first entry pi appended hangs from the other harness's last one.
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range loaded.Snapshot() {
		if e.ID != "" && e.Raw != nil && !strings.Contains(string(e.Raw), `"parentId"`) {
			t.Fatalf("an entry without parentId: %s", e.Raw)
		}
	}
	var first Entry
	for i, e := range loaded.Snapshot() {
		if e.ID == lastID {
			first = loaded.Snapshot()[i+1]
		}
	}
	if first.ParentID != lastID {
		t.Fatalf("pi's first entry hangs from %q, want %q", first.ParentID, lastID)
	}
	// And what pi wrote replays to the request it sent.
	rq, ok := RequestAt(loaded.Branch(), 0)
	if !ok {
		t.Fatal("request not recorded")
	}
	replayed, _ := provider.DryRun(r.Route, provider.Request{Model: "m1", Messages: rq.Messages, Tools: rq.Tools, Stream: true})
	var a, b any
	json.Unmarshal(replayed, &a)
	raw, _ := json.Marshal(body)
	json.Unmarshal(raw, &b)
	ra, _ := json.Marshal(a)
	rb, _ := json.Marshal(b)
	if string(ra) != string(rb) {
		t.Fatalf("replayed request differs from the one sent:\n%s\n%s", ra, rb)
	}
}
