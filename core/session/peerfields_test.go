package session

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/piwasm/pi/core/provider"
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

// TestUsageOfRecordsWhoPriced: a reply's usage records reasoning tokens
// and the one-hour cache writes only when the provider counted them, and
// says whether the total was billed by the provider (which replaces the
// total the prices give) or computed (false), or nothing when no usage
// arrived to price.
func TestUsageOfRecordsWhoPriced(t *testing.T) {
	route := provider.Route{Cost: &provider.ModelCost{Rates: provider.Rates{Input: 1, Output: 2}}}
	for _, c := range []struct {
		u    provider.Usage
		want string
	}{
		{provider.Usage{}, `{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`},
		{provider.Usage{InputTokens: 1000000, OutputTokens: 500000, ReasoningTokens: 4, ReasoningReported: true, Reported: true},
			`{"input":1000000,"output":500000,"cacheRead":0,"cacheWrite":0,"reasoning":4,"totalTokens":1500000,"cost":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"total":2,"totalFromProvider":false}}`},
		{provider.Usage{InputTokens: 1000000, CacheWrite1hReported: true, CacheWrite1hTokens: 0, Reported: true, Billed: true, BilledTotal: 0.5},
			`{"input":1000000,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":1000000,"cost":{"input":1,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.5,"totalFromProvider":true},"cacheWrite1h":0}`},
	} {
		got, err := json.Marshal(UsageOf(route, c.u))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.u, got, c.want)
		}
	}
}
