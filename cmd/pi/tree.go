package main

import (
	"context"

	"github.com/piwasm/pi/core/compact"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
)

// branchSettings are the branchSummary.* settings in force.
func branchSettings(ls *liveSession) compact.BranchSettings {
	bs := compact.BranchDefaults
	if v := ls.world.loaded.Values; v != nil {
		if n, ok := v.Int("branchSummary.reserveTokens"); ok && n >= 0 {
			bs.ReserveTokens = int(n)
		}
		bs.SkipPrompt = v.Bool("branchSummary.skipPrompt")
	}
	return bs
}

// branchSummarizer writes branch summaries with the session's current
// model, as the established harness does when /tree leaves a branch.
func branchSummarizer(ls *liveSession) runtime.Summarizer {
	return func(ctx context.Context, entries []session.Entry, focus string, replace bool) (session.BranchSummary, error) {
		route := ls.rt.Route()
		runner := ls.rt.Runner()
		retry, notices := ls.rt.SummaryRetries("branchSummary", "")
		m := compact.Model{Complete: runner.Complete, ModelID: route.ModelID, MaxTokens: route.MaxTokens, Cost: route.Cost, Retry: retry, Notices: notices}
		res, err := compact.SummarizeBranch(ctx, entries, compact.BranchOptions{Model: m, ContextWindow: route.ContextWindow,
			Settings: branchSettings(ls), Focus: focus, ReplaceInstructions: replace})
		if err != nil {
			return session.BranchSummary{}, err
		}
		out := session.BranchSummary{Summary: res.Summary, Files: &res.Files}
		if !res.Empty {
			out.Usage = &res.Usage
		}
		return out, nil
	}
}
