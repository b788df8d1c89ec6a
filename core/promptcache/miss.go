package promptcache

import (
	"fmt"
	"math"
	"time"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/session"
)

// NoticeIdle is the idle gap past which a miss is put down to the cache
// entry expiring (Anthropic's default lifetime).
const NoticeIdle = 5 * time.Minute

// noiseFloor: a miss of this many tokens or fewer is the granularity of
// cache breakpoints, not a miss.
const noiseFloor = 1024

// Miss is a reply that paid again for prompt tokens the previous request
// had already cached.
type Miss struct {
	Tokens int
	// Cost is what those tokens cost beyond reading them from the cache.
	Cost float64
	// Idle is the time since the previous request; ModelChanged says it
	// went to another model.
	Idle         time.Duration
	ModelChanged bool
}

// ReadRate gives a model's cache-read price in dollars per million tokens
// (0: unknown), for a reply that read nothing from the cache.
type ReadRate func(provider, model string) float64

type previous struct {
	promptTokens  int
	model         string
	at            int64 // unix milliseconds
	reportedCache bool
}

func promptOf(u *prompt.Usage) int { return u.Input + u.CacheRead + u.CacheWrite }

func detect(prev *previous, m *prompt.Message, rate ReadRate) *Miss {
	u := m.Usage
	if prev == nil || u == nil {
		return nil
	}
	n := promptOf(u)
	// A reply that reports no cache use at all counts only where the
	// provider reported cache use before: otherwise it may simply not
	// report caching.
	if n <= 0 || (u.CacheRead+u.CacheWrite == 0 && !prev.reportedCache) {
		return nil
	}
	missed := min(prev.promptTokens, n) - u.CacheRead
	if missed <= noiseFloor {
		return nil
	}
	// The missed tokens were billed as input or cache writes: their
	// price per token is this reply's own, less what a read costs.
	var paid, read float64
	if p := u.Input + u.CacheWrite; p > 0 {
		paid = (u.Cost.Input + u.Cost.CacheWrite) / float64(p)
	}
	if u.CacheRead > 0 {
		read = u.Cost.CacheRead / float64(u.CacheRead)
	} else if rate != nil {
		read = rate(m.Provider, m.Model) / 1e6
	}
	return &Miss{Tokens: missed, Cost: float64(missed) * max(0, paid-read),
		Idle: time.Duration(max(0, m.Timestamp-prev.at)) * time.Millisecond, ModelChanged: m.Provider+"/"+m.Model != prev.model}
}

func after(prev *previous, m *prompt.Message) *previous {
	n := promptOf(m.Usage)
	if n <= 0 {
		return prev
	}
	reported := (prev != nil && prev.reportedCache) || m.Usage.CacheRead+m.Usage.CacheWrite > 0
	return &previous{promptTokens: n, model: m.Provider + "/" + m.Model, at: m.Timestamp, reportedCache: reported}
}

// Waste sums a session's misses.
type Waste struct {
	Tokens, Count int
	Cost          float64
}

// scan goes through entries in order, calling found for each miss.
func scan(entries []session.Entry, rate ReadRate, found func(*prompt.Message, *Miss)) *previous {
	var prev *previous
	for i := range entries {
		e := &entries[i]
		switch {
		case e.Type == session.TypeCompaction || e.Type == session.TypeBranchSummary:
			// The context changed on purpose: what follows is new
			// content, not content billed again. A model switch is not
			// exempt: it bills the whole prompt again.
			prev = nil
		case e.Type == session.TypeUsage && e.UsageKind == session.UsageCacheWarm && e.Usage != nil:
			if n := promptOf(e.Usage); n > 0 {
				at, _ := time.Parse(time.RFC3339Nano, e.Time)
				prev = &previous{promptTokens: n, model: e.Provider + "/" + e.ModelID, at: at.UnixMilli(), reportedCache: true}
			}
		case e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == "assistant" && e.Message.Usage != nil:
			if m := detect(prev, e.Message, rate); m != nil && found != nil {
				found(e.Message, m)
			}
			prev = after(prev, e.Message)
		}
	}
	return prev
}

// Detect finds the miss a reply just received paid for, given the entries
// before it (all of the session's, in file order); nil when none counts.
func Detect(entries []session.Entry, m prompt.Message, rate ReadRate) *Miss {
	if m.Usage == nil {
		return nil
	}
	return detect(scan(entries, rate, nil), &m, rate)
}

// Total sums the misses of a session's entries.
func Total(entries []session.Entry, rate ReadRate) Waste {
	var w Waste
	scan(entries, rate, func(_ *prompt.Message, m *Miss) {
		w.Tokens += m.Tokens
		w.Cost += m.Cost
		w.Count++
	})
	return w
}

// Notable says whether a miss is worth a notice: 20,000 tokens or ten
// cents.
func (m *Miss) Notable() bool { return m != nil && (m.Tokens >= 20000 || m.Cost >= 0.1) }

// Notice is the transcript's line for a miss.
func (m *Miss) Notice() string {
	what := "Prompt cache missed"
	switch {
	case m.ModelChanged:
		what += " after a model switch"
	case m.Idle >= NoticeIdle:
		what += fmt.Sprintf(" after %dm idle", int(math.Round(m.Idle.Minutes())))
	}
	cost := ""
	if m.Cost >= 0.01 {
		cost = fmt.Sprintf(" (~$%.2f)", m.Cost)
	}
	return fmt.Sprintf("%s: %s tokens billed again%s", what, Tokens(m.Tokens), cost)
}

// CompactionNotice is the transcript's line for what a compaction or a
// branch summary was billed.
func CompactionNotice(branchSummary bool, u prompt.Usage) string {
	what := "Compaction"
	if branchSummary {
		what = "Branch summary"
	}
	cost := ""
	if u.Cost.Total >= 0.01 {
		cost = fmt.Sprintf(" (~$%.2f)", u.Cost.Total)
	}
	return fmt.Sprintf("%s used %s tokens%s", what, Tokens(u.Input+u.Output+u.CacheRead+u.CacheWrite), cost)
}

// Tokens writes a token count short: 950, 1.2k, 34k, 1.5M.
func Tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1000000:
		return fmt.Sprintf("%dk", int(math.Round(float64(n)/1000)))
	case n < 10000000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%dM", int(math.Round(float64(n)/1e6)))
}
