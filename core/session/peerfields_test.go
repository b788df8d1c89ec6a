package session

import (
	"bytes"
	"path/filepath"
	"testing"
)

// TestPeerAssistantFieldsRoundTrip: every assistant message the
// established harness wrote (its replies to tool calls, compactions and an
// overflow) is written back by pi byte for byte once loaded, with what that
// harness records about each reply — the response id and model, the raw
// stop reason, the reasoning tokens, whether the provider billed the
// total, the duration and the thinking level — so a session that passes
// through pi keeps them.
func TestPeerAssistantFieldsRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "peer", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no peer sessions: %v", err)
	}
	seen := 0
	for _, f := range files {
		tr, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tr.Snapshot() {
			if e.Type != TypeMessage || e.Message == nil || e.Message.Role != "assistant" {
				continue
			}
			if !bytes.Contains(e.Raw, []byte(`"responseId"`)) {
				continue
			}
			seen++
			got, ok := appendEntryJSON(nil, e)
			if !ok {
				t.Errorf("%s %s: not written by the encoder", f, e.ID)
				continue
			}
			if want := bytes.TrimSpace(e.Raw); !bytes.Equal(got, want) {
				t.Errorf("%s %s:\n got %s\nwant %s", f, e.ID, got, want)
			}
			m := e.Message
			if m.ResponseID == "" || m.RawStopReason == "" || m.DurationMs == nil || m.ThinkingLevel == "" ||
				m.Usage == nil || m.Usage.Reasoning == nil || m.Usage.Cost.TotalFromProvider == nil {
				t.Errorf("%s %s: fields lost on load: %+v", f, e.ID, m)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("only %d assistant messages with the fields", seen)
	}
}
