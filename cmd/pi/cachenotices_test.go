//go:build unix

package main

import (
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// A reply that wrote to the cache again what the previous request had
// cached gets a notice with showCacheMissNotices on, and none with it
// off (the default).
func TestCacheMissNotice(t *testing.T) {
	for _, on := range []bool{true, false} {
		name := "off"
		if on {
			name = "on"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			proj := t.TempDir()
			replies := []scripted.Reply{
				{Text: "First reply.", PromptTokens: 100, CacheWrite: 40000},
				{Text: "Second reply.", PromptTokens: 100, CacheWrite: 40500},
			}
			// No promptCache: nothing is warmed between the two.
			warmModel(t, c, priceyCost, "", replies)
			writeFiles(t, c.agentDir, map[string]string{"models.json": strings.Replace(readFile(t, c.agentDir+"/models.json"), `,"promptCache":{"short":11}`, "", 1)})
			if on {
				writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"showCacheMissNotices": true}`})
			}
			tm := startTerminal(t, c, proj, "--cwd", proj)
			tm.waitFor("mock/mock-1") // ready for input
			tm.typeLine("one")
			tm.waitFor("First reply.")
			tm.typeLine("two")
			// The notice is drawn with the reply it follows.
			s := tm.waitFor("Second reply.")
			const notice = "Prompt cache missed: 40k tokens billed again (~$1.38)"
			if got := strings.Contains(squeeze(s), squeeze(notice)); got != on {
				t.Errorf("notice shown: %v, want %v:\n%s", got, on, s)
			}
		})
	}
}

// A refresh of an idle session shows its cost, and /session the state of
// cache warming.
func TestCacheWarmingInTheSession(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	warmModel(t, c, priceyCost, "", []scripted.Reply{{Text: "Only reply.", PromptTokens: 100, CacheWrite: 100000}})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"showCacheMissNotices": true}`})
	tm := startTerminal(t, c, proj, "--cwd", proj)
	tm.waitFor("mock/mock-1") // ready for input
	tm.typeLine("hello")
	tm.waitFor("Only reply.")
	tm.waitFor("Prompt cache kept warm: $")
	tm.typeLine("/session")
	tm.waitFor("warming  idle: Next decision in")
	tm.waitFor("a cache miss would cost $")
}

// With showCacheMissNotices a compaction says what its summary request
// was billed, priced at the model's rates.
func TestCompactionBilledNotice(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	warmModel(t, c, priceyCost, "", []scripted.Reply{
		{Text: "First answer.", PromptTokens: 100},
		{Text: "Second answer.", PromptTokens: 100},
		{Text: "## Goal\nSummary.", PromptTokens: 12000},
	})
	writeFiles(t, c.agentDir, map[string]string{
		"models.json":   strings.Replace(readFile(t, c.agentDir+"/models.json"), `,"promptCache":{"short":11}`, "", 1),
		"settings.json": `{"showCacheMissNotices": true, "compaction": {"keepRecentTokens": 6}}`,
	})
	tm := startTerminal(t, c, proj, "--cwd", proj)
	tm.waitFor("mock/mock-1")
	tm.typeLine("first question")
	tm.waitFor("First answer.")
	tm.typeLine("second question")
	tm.waitFor("Second answer.")
	tm.typeLine("/compact")
	tm.waitFor("compacted (manual)")
	// 12,000 input tokens at $30 and ten output tokens at $150 a million.
	tm.waitFor("Compaction used 12k tokens (~$0.36)")
}
