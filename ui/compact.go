package ui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/ui/render"
)

// cmdCompact summarises the older part of the session now (/compact
// [focus]); the focus tells the summary what to keep. The model call runs
// off the UI's loop; compaction_start and compaction_end draw it.
func (m *Model) cmdCompact(args string) tea.Cmd {
	if !m.idle("/compact") {
		return m.flush()
	}
	rt := m.rt
	return func() tea.Msg {
		if _, err := rt.Compact(args); err != nil {
			return noticeMsg("✗ compaction: " + err.Error())
		}
		return nil
	}
}

// compactingNotice is the progress notice of a compaction, by reason.
var compactingNotice = map[string]string{
	"manual":    "compacting the session…",
	"threshold": "the context is nearly full: compacting…",
	"overflow":  "the context overflowed: compacting, then trying again…",
}

// compactionEvent draws a compaction: a notice while it runs, then a block
// with the sizes before and after whose expanded form (ctrl+o) shows the
// summary.
func (m *Model) compactionEvent(e agent.Event) {
	switch e.Type {
	case agent.CompactionStart:
		m.compacting = true
		m.notice = compactingNotice[e.Reason]
	case agent.SummarizationRetryScheduled:
		// The failed summary request (compaction or branch summary) is
		// tried again after the wait: say so where the progress notice was.
		m.notice = fmt.Sprintf("summary request failed: %s; retrying in %s (attempt %d of %d)", e.ErrorMessage,
			(time.Duration(e.DelayMs) * time.Millisecond).Round(100*time.Millisecond), e.Attempt, e.MaxAttempts)
	case agent.SummarizationRetryAttemptStart:
		if e.Source == "branchSummary" {
			m.notice = "summarising the branch…"
		} else {
			m.notice = compactingNotice[e.Reason]
		}
	case agent.SummarizationRetryFinished:
		if strings.HasPrefix(m.notice, "summary request failed") {
			m.notice = ""
		}
	case agent.CompactionEnd:
		m.compacting = false
		m.notice = ""
		r := e.Compaction
		if r == nil {
			if e.ErrorMessage != "" && e.Reason != "manual" {
				m.addNotice("✗ " + e.ErrorMessage)
			}
			return
		}
		head := fmt.Sprintf("compacted (%s): about %d tokens of context → %d; the summary stands for the older messages (the session file keeps them)", e.Reason, r.TokensBefore, r.EstimatedTokensAfter)
		summary := r.Summary
		m.addBlock(func(w int, expanded bool) string {
			if !expanded {
				return render.Notice(head+" · ctrl+o shows the summary", w, m.st)
			}
			return render.Notice(head+"\n\n"+summary, w, m.st)
		})
		m.summaryBilled(false, r.Usage)
	}
}
