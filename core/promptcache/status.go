package promptcache

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// dollars writes an amount with three decimals, as /session shows money.
func dollars(v float64) string {
	if v < 0 {
		return "-$" + strconv.FormatFloat(-v, 'f', 3, 64)
	}
	return "$" + strconv.FormatFloat(v, 'f', 3, 64)
}

func economics(d Decision) string {
	if !d.EconomicsAvailable {
		return "the model's prices are not known"
	}
	p := int(math.Round(d.ContinuationProbability * 100))
	chance := fmt.Sprintf("%d%% chance of a next request", p)
	if d.Phase == PhaseStreaming {
		chance += " while the agent works"
	}
	cmp := "at least"
	if d.Action != ActionWarm {
		cmp = "under"
	}
	return fmt.Sprintf("%s, expected saving %s, %s %s", chance, dollars(d.ExpectedSavings), cmp, dollars(MinSavings))
}

func until(next, now time.Time) string {
	if next.IsZero() || !next.After(now) {
		return "Deciding now"
	}
	secs := int(math.Ceil(next.Sub(now).Seconds()))
	var parts []string
	if h := secs / 3600; h > 0 {
		parts = append(parts, fmt.Sprintf("%dh", h))
	}
	if m := secs % 3600 / 60; m > 0 {
		parts = append(parts, fmt.Sprintf("%dm", m))
	}
	if s := secs % 60; s > 0 || len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%ds", s))
	}
	return "Next decision in " + strings.Join(parts, " ")
}

// FormatStatus is the one-line cache warming status /session shows.
func FormatStatus(s Status, now time.Time) string {
	d := s.Decision
	if d == nil || (s.State == StateInactive && !d.EconomicsAvailable && !s.ExtensionOverride) {
		reason := s.Reason
		if reason == "" {
			reason = "reason unknown"
		}
		return "Inactive (" + reason + ")"
	}
	details := economics(*d) + ": " + d.Action
	if s.ExtensionOverride {
		details = "overridden by an extension; " + economics(*d)
	}
	switch s.State {
	case StateInactive:
		return "Stopped (" + details + ")"
	case StateRefreshing:
		return "Refreshing the cache (" + details + ")"
	}
	return until(s.NextWarmAt, now) + " (" + details + ")"
}

// FormatWarmed is the transcript's line for the cost of one or more
// refreshes in a row.
func FormatWarmed(total float64, note string) string {
	c := strconv.FormatFloat(total, 'f', 6, 64)
	// Six decimals, trailing zeros dropped down to three.
	for strings.HasSuffix(c, "0") && len(c)-strings.IndexByte(c, '.') > 4 {
		c = c[:len(c)-1]
	}
	if note != "" {
		return fmt.Sprintf("Prompt cache kept warm (%s): $%s", note, c)
	}
	return "Prompt cache kept warm: $" + c
}
