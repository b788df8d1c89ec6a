package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/piwasm/pi/core/agent"
)

// TestSummaryRetryLine: a failed summary request that will be retried is
// said in the footer with the error, the wait and the attempt; the retry
// brings the compaction notice back.
func TestSummaryRetryLine(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 30})
	m.Update(eventsMsg{{Type: agent.CompactionStart, Reason: "threshold"},
		{Type: agent.SummarizationRetryScheduled, Attempt: 1, MaxAttempts: 3, DelayMs: 2000, ErrorMessage: "HTTP 503"}})
	if f := ansi.Strip(m.footer()); !strings.Contains(f, "summary request failed: HTTP 503; retrying in 2s (attempt 1 of 3)") {
		t.Errorf("footer %q", f)
	}
	m.Update(eventsMsg{{Type: agent.SummarizationRetryAttemptStart, Source: "compaction", Reason: "threshold"}})
	if f := ansi.Strip(m.footer()); !strings.Contains(f, "the context is nearly full: compacting") {
		t.Errorf("footer after the retry started %q", f)
	}
}
