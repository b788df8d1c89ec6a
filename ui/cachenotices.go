package ui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/promptcache"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/termtext"
)

// warmNotice is the transcript line that sums the cost of refreshes in a
// row, while it is the last block and not yet printed.
type warmNotice struct {
	block int
	total float64
	note  string
}

// cacheWarned draws what showCacheMissNotices shows when a refresh's usage
// entry is appended: its cost, added to the previous line's when
// refreshes follow each other.
func (m *Model) cacheWarned(e agent.Event) {
	if !m.host.CacheNotices || e.Type != agent.EntryAppended {
		return
	}
	var entry session.Entry
	if err := json.Unmarshal(e.Entry, &entry); err != nil || entry.Type != session.TypeUsage || entry.UsageKind != session.UsageCacheWarm || entry.Usage == nil {
		return
	}
	if w := m.warm; w != nil && w.block == len(m.blocks)-1 && w.block >= m.printed && w.note == entry.Note {
		w.total += entry.Usage.Cost.Total
		return
	}
	w := &warmNotice{block: len(m.blocks), total: entry.Usage.Cost.Total, note: entry.Note}
	m.warm = w
	m.addBlock(func(width int, _ bool) string {
		return m.st.Dim.Render("  " + termtext.EscapeLines(promptcache.FormatWarmed(w.total, w.note)))
	})
}

// cacheMissed draws a notice under a reply that paid again for prompt
// tokens the cache held (showCacheMissNotices), and nothing for a small
// miss.
func (m *Model) cacheMissed(msg prompt.Message) {
	if !m.host.CacheNotices || msg.Role != "assistant" || msg.Usage == nil {
		return
	}
	branch := m.rt.Transcript().Branch()
	// The reply is recorded before its message_end: what came before it
	// is what it is compared with.
	for i := len(branch) - 1; i >= 0; i-- {
		if e := branch[i]; e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == "assistant" && e.Message.Timestamp == msg.Timestamp {
			branch = branch[:i]
			break
		}
	}
	if miss := promptcache.Detect(branch, msg, m.cacheReadRate()); miss.Notable() {
		m.addWarning(miss.Notice())
	}
}

// summaryBilled draws what a compaction's or a branch summary's request
// was billed (showCacheMissNotices).
func (m *Model) summaryBilled(branchSummary bool, u *prompt.Usage) {
	if m.host.CacheNotices && u != nil {
		m.addWarning(promptcache.CompactionNotice(branchSummary, *u))
	}
}

func (m *Model) addWarning(text string) {
	m.addBlock(func(width int, _ bool) string {
		return m.st.Warning.Render("  " + termtext.EscapeLines(text))
	})
}

// cacheSummary is what /session says of the prompt cache: tokens billed
// again after misses, and the state of cache warming.
func (m *Model) cacheSummary(tr *session.Transcript) string {
	var b strings.Builder
	w := promptcache.Total(tr.Branch(), m.cacheReadRate())
	if w.Count > 0 {
		misses := "1 miss"
		if w.Count > 1 {
			misses = fmt.Sprintf("%d misses", w.Count)
		}
		fmt.Fprintf(&b, "\nmissed   %d tokens billed again (%s)", w.Tokens, misses)
		if w.Cost >= 0.0001 {
			fmt.Fprintf(&b, ", $%.3f", w.Cost)
		}
	}
	if m.host.CacheWarming != nil {
		b.WriteString("\n" + m.host.CacheWarming())
	}
	return b.String()
}

// cacheReadRate prices a cache read for a reply that read nothing: the
// model in use knows its price; another model's is not known here.
func (m *Model) cacheReadRate() promptcache.ReadRate {
	route := m.rt.Route()
	return func(provider, model string) float64 {
		if route.Cost != nil && provider == route.Provider && model == route.ModelID {
			return route.Cost.CacheRead
		}
		return 0
	}
}
