package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/prompt"
)

// A cache refresh's usage entry is written in the established harness's
// shape, counts in the session's totals once written and once read back,
// and never reaches a request.
func TestUsageEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	tr, err := Create(path, Header{ID: "u", Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, tr, userMsg("hi"))
	mustAppend(t, tr, assistantMsg("hello"))
	before := len(tr.requestMessages(nil))
	e, err := tr.AppendUsage(UsageCacheWarm, "anthropic", "claude-x", prompt.Usage{Input: 1, Output: 1, CacheRead: 5000, TotalTokens: 5002,
		Cost: prompt.Cost{Total: 0.0015}}, "extension override")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(tr.requestMessages(nil)); got != before {
		t.Errorf("the usage entry changed the request: %d messages, want %d", got, before)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	last := lines[len(lines)-1]
	want := `{"type":"usage","id":"` + e.ID + `","parentId":"` + e.ParentID + `","timestamp":"` + e.Time +
		`","kind":"cache_warm","provider":"anthropic","model":"claude-x","usage":{"input":1,"output":1,"cacheRead":5000,"cacheWrite":0,"totalTokens":5002,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.0015}},"note":"extension override"}`
	if last != want {
		t.Errorf("line:\n got %s\nwant %s", last, want)
	}
	if s := tr.Stats(); s.Tokens.CacheRead != 5000 || s.Cost != 0.0015 || s.AssistantMessages != 1 {
		t.Errorf("stats as written = %+v", s)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := back.Stats(); s.Tokens.CacheRead != 5000 || s.Cost != 0.0015 {
		t.Errorf("stats read back = %+v", s)
	}
	branch := back.Branch()
	got := branch[len(branch)-1]
	if got.Type != TypeUsage || got.UsageKind != UsageCacheWarm || got.Provider != "anthropic" || got.ModelID != "claude-x" || got.Note != "extension override" || got.Usage == nil {
		t.Errorf("read back = %+v", got)
	}
}
