//go:build wasip1

// compact-notes supplies compaction summaries made of the user's requests.
package main

import (
	"encoding/json"
	"strings"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func init() {
	sdk.OnSessionBeforeCompact(func(ev *abi.SessionBeforeCompactEvent) (abi.SessionBeforeCompactResult, error) {
		switch strings.TrimSpace(ev.CustomInstructions) {
		case "model":
			return sdk.KeepCompaction(), nil
		case "skip":
			return sdk.CancelCompaction(), nil
		}
		return sdk.SupplySummary(notes(ev)), nil
	})
}

// notes lists the user's requests of the summarised part.
func notes(ev *abi.SessionBeforeCompactEvent) string {
	p := ev.Preparation
	var b strings.Builder
	if p.PreviousSummary != nil {
		b.WriteString(*p.PreviousSummary)
		b.WriteString("\n\n")
	}
	b.WriteString("## Requests so far\n")
	for _, raw := range append(append([]json.RawMessage{}, p.MessagesToSummarize...), p.TurnPrefixMessages...) {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &m) != nil || m.Role != "user" {
			continue
		}
		if t := text(m.Content); t != "" {
			b.WriteString("- " + firstLine(t) + "\n")
		}
	}
	if len(p.ModifiedFiles) > 0 {
		b.WriteString("\n## Files changed\n- " + strings.Join(p.ModifiedFiles, "\n- ") + "\n")
	}
	return b.String()
}

func text(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(c, &blocks)
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, " ")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}

func main() {}
