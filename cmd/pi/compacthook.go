package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/compact"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
)

// compactHook lets extensions that declare session_before_compact take a
// compaction over (nil when none does). A hook that fails is reported as a
// warning (see app.warner) and pi writes the summary itself; one with the abort policy stops
// the compaction.
//
// The dispatcher is looked up at each compaction (current returns the
// one in use), so the extensions /reload brings take part.
func compactHook(current func() *hooks.Dispatcher, warnings *hookWarnings) runtime.CompactionHook {
	return func(ctx context.Context, p *compact.Preparation, branch []session.Entry, focus, reason string, willRetry bool) (bool, *compact.Result, error) {
		d := current()
		if !d.HasCompactHooks() {
			return false, nil, nil
		}
		ev := abi.SessionBeforeCompactEvent{
			Preparation: abi.CompactPreparation{
				FirstKeptEntryID: p.FirstKeptEntryID, IsSplitTurn: p.SplitTurn, TokensBefore: p.TokensBefore,
				MessagesToSummarize: nodeMessages(p.ToSummarize), TurnPrefixMessages: nodeMessages(p.TurnPrefix),
				ReadFiles: p.Files.ReadFiles, ModifiedFiles: p.Files.ModifiedFiles,
			},
			CustomInstructions: focus, Reason: reason, WillRetry: willRetry,
		}
		if p.HasPrevious {
			prev := p.PreviousSummary
			ev.Preparation.PreviousSummary = &prev
		}
		warnings.report(d, "")
		res, name, err := d.SessionBeforeCompact(ctx, ev)
		warnings.report(d, " (pi writes the summary itself)")
		if err != nil {
			return false, nil, err
		}
		if res.Cancel {
			return true, nil, nil
		}
		c := res.Compaction
		if c == nil {
			return false, nil, nil
		}
		r := &compact.Result{Summary: c.Summary, FirstKeptEntryID: p.FirstKeptEntryID, TokensBefore: p.TokensBefore,
			EstimatedTokensAfter: p.KeptTokens + (len(c.Summary)+3)/4, Files: p.Files, FromHook: true}
		if c.FirstKeptEntryID != "" {
			if !onBranch(branch, c.FirstKeptEntryID) {
				warnings.warn(fmt.Sprintf("extension %s kept from entry %s, which is not on the active branch; pi writes the summary itself", name, c.FirstKeptEntryID))
				return false, nil, nil
			}
			r.FirstKeptEntryID = c.FirstKeptEntryID
		}
		if c.TokensBefore > 0 {
			r.TokensBefore = c.TokensBefore
		}
		return false, r, nil
	}
}

func onBranch(branch []session.Entry, id string) bool {
	for _, e := range branch {
		if e.ID == id {
			return true
		}
	}
	return false
}

// nodeMessages are the summarised messages in the transcript's JSON form.
func nodeMessages(nodes []session.Node) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(nodes))
	for _, n := range nodes {
		m := prompt.Message{Role: n.Role, Content: prompt.TextContent(n.Content)}
		if n.Msg != nil {
			m = *n.Msg
		}
		if b, err := json.Marshal(m); err == nil {
			out = append(out, b)
		}
	}
	return out
}
