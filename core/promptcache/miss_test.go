package promptcache

import (
	"testing"
	"time"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/session"
)

func reply(provider, model string, at time.Duration, input, read, write int, cost prompt.Cost) session.Entry {
	return session.Entry{Type: session.TypeMessage, Message: &prompt.Message{Role: "assistant", Provider: provider, Model: model,
		Timestamp: int64(at / time.Millisecond), Usage: &prompt.Usage{Input: input, CacheRead: read, CacheWrite: write, Cost: cost}}}
}

func TestDetect(t *testing.T) {
	rate := func(string, string) float64 { return 0.3 }
	first := reply("a", "m", 0, 10, 0, 40000, prompt.Cost{CacheWrite: 0.15})
	cases := []struct {
		name    string
		before  []session.Entry
		m       session.Entry
		tokens  int
		notable bool
		notice  string
	}{
		{"first reply", nil, first, 0, false, ""},
		{"a hit", []session.Entry{first}, reply("a", "m", time.Minute, 10, 40010, 500, prompt.Cost{}), 0, false, ""},
		{"below the noise floor", []session.Entry{first}, reply("a", "m", time.Minute, 10, 39000, 1000, prompt.Cost{}), 0, false, ""},
		{"a miss", []session.Entry{first}, reply("a", "m", time.Minute, 10, 0, 40500, prompt.Cost{Input: 0.00003, CacheWrite: 0.151875}),
			40010, true, "Prompt cache missed: 40k tokens billed again (~$0.14)"},
		{"after idle", []session.Entry{first}, reply("a", "m", 7*time.Minute, 10, 0, 40500, prompt.Cost{}),
			40010, true, "Prompt cache missed after 7m idle: 40k tokens billed again"},
		{"after a model switch", []session.Entry{first}, reply("b", "m", time.Minute, 40010, 0, 0, prompt.Cost{}),
			40010, true, "Prompt cache missed after a model switch: 40k tokens billed again"},
		{"after a compaction", []session.Entry{first, {Type: session.TypeCompaction}}, reply("a", "m", time.Minute, 10, 0, 40500, prompt.Cost{}), 0, false, ""},
		// A provider that never reports caching: nothing to say.
		{"no cache reported", []session.Entry{reply("a", "m", 0, 40000, 0, 0, prompt.Cost{})}, reply("a", "m", time.Minute, 40000, 0, 0, prompt.Cost{}), 0, false, ""},
		{"small", []session.Entry{reply("a", "m", 0, 10, 0, 5000, prompt.Cost{})}, reply("a", "m", time.Minute, 10, 0, 5000, prompt.Cost{}), 5010, false, ""},
	}
	for _, c := range cases {
		got := Detect(c.before, *c.m.Message, rate)
		tokens := 0
		if got != nil {
			tokens = got.Tokens
		}
		if tokens != c.tokens || got.Notable() != c.notable {
			t.Errorf("%s: %+v, want %d tokens (notable %v)", c.name, got, c.tokens, c.notable)
			continue
		}
		if c.notice != "" && got.Notice() != c.notice {
			t.Errorf("%s: notice %q, want %q", c.name, got.Notice(), c.notice)
		}
	}
	all := []session.Entry{first, reply("a", "m", time.Minute, 10, 0, 40500, prompt.Cost{Input: 0.00003, CacheWrite: 0.151875}), reply("a", "m", 2*time.Minute, 10, 40500, 10, prompt.Cost{})}
	if w := Total(all, rate); w.Count != 1 || w.Tokens != 40010 {
		t.Errorf("total = %+v", w)
	}
}

func TestNoticeTexts(t *testing.T) {
	u := prompt.Usage{Input: 12000, Output: 800, Cost: prompt.Cost{Total: 0.048}}
	if got := CompactionNotice(false, u); got != "Compaction used 13k tokens (~$0.05)" {
		t.Errorf("compaction: %q", got)
	}
	if got := CompactionNotice(true, prompt.Usage{Input: 900}); got != "Branch summary used 900 tokens" {
		t.Errorf("branch summary: %q", got)
	}
	for n, want := range map[int]string{950: "950", 1234: "1.2k", 40100: "40k", 1500000: "1.5M", 25000000: "25M"} {
		if got := Tokens(n); got != want {
			t.Errorf("Tokens(%d) = %q, want %q", n, got, want)
		}
	}
}
