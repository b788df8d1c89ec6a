package runtime

import (
	"context"
	"errors"
	"time"

	"github.com/piwasm/pi/internal/lazyre"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/compact"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/session"
)

// Compaction reasons, as events and extensions name them.
const (
	ReasonManual    = "manual"
	ReasonThreshold = "threshold"
	ReasonOverflow  = "overflow"
)

// ErrNothingToCompact: the session is too small to compact.
var ErrNothingToCompact = errors.New("Nothing to compact (session too small)")

// CompactionHook may take a compaction over: it runs before the summary is
// written. Cancel stops the compaction; a Result replaces the built-in
// summary. An error means the hook failed: the built-in summary is used.
type CompactionHook func(ctx context.Context, p *compact.Preparation, branch []session.Entry, focus, reason string, willRetry bool) (cancel bool, r *compact.Result, err error)

// SetCompaction sets the compaction settings (for the current model) and
// the hook extensions take part through (nil: none).
func (rt *Runtime) SetCompaction(s compact.Settings, hook CompactionHook) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.compaction, rt.compactHook = s, hook
}

// SetSummaryRetry sets how a failed summary request is tried again
// (settings retry.*; the zero value: never).
func (rt *Runtime) SetSummaryRetry(r compact.Retry) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.summaryRetry = r
}

// SummaryRetries returns the retry policy of summary requests and the
// notices that report its retries as summarization_retry_* events with
// source ("compaction" or "branchSummary") and reason ("" for a branch
// summary).
func (rt *Runtime) SummaryRetries(source, reason string) (compact.Retry, compact.RetryNotices) {
	rt.mu.Lock()
	r := rt.summaryRetry
	rt.mu.Unlock()
	return r, compact.RetryNotices{
		Scheduled: func(attempt, max int, d time.Duration, msg string) {
			rt.emit(agent.Event{Type: agent.SummarizationRetryScheduled, Attempt: attempt, MaxAttempts: max, DelayMs: d.Milliseconds(), ErrorMessage: msg})
		},
		AttemptStart: func() {
			rt.emit(agent.Event{Type: agent.SummarizationRetryAttemptStart, Source: source, Reason: reason})
		},
		Finished: func() { rt.emit(agent.Event{Type: agent.SummarizationRetryFinished}) },
	}
}

// SetCompactionFor sets how compaction settings are worked out for a model
// (its compaction.modelOverrides entry), so a switch of model re-resolves
// them (nil: the settings stay as set).
func (rt *Runtime) SetCompactionFor(f func(provider, modelID string) compact.Settings) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.compactionFor = f
}

// SetAutoCompaction turns automatic compaction (threshold and overflow)
// on or off for this session.
func (rt *Runtime) SetAutoCompaction(on bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.compaction.Enabled = on
}

// CompactionSettings are the settings in force.
func (rt *Runtime) CompactionSettings() compact.Settings {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.compaction
}

// Compact compacts the idle session now (/compact, RPC compact), with
// focus passed on to the summary. It runs whether or not automatic
// compaction is on.
func (rt *Runtime) Compact(focus string) (*agent.CompactionResult, error) {
	rt.mu.Lock()
	if rt.running {
		rt.mu.Unlock()
		return nil, ErrBusy
	}
	ctx, cancel := context.WithCancel(rt.base)
	rt.running, rt.cancel, rt.idle = true, cancel, make(chan struct{})
	idle := rt.idle
	rt.mu.Unlock()
	res, err := rt.compact(ctx, ReasonManual, focus, false)
	rt.mu.Lock()
	cancel()
	rt.running = false
	if q, ok := rt.popLocked(); ok {
		// A line typed while the summary was written runs now.
		rt.queueChangedLocked()
		rt.startLocked(q)
	}
	rt.mu.Unlock()
	close(idle)
	return res, err
}

// compact runs one compaction of the current branch and reports it with
// compaction_start and compaction_end.
func (rt *Runtime) compact(ctx context.Context, reason, focus string, willRetry bool) (*agent.CompactionResult, error) {
	rt.mu.Lock()
	s, hook := rt.compaction, rt.compactHook
	tr := rt.runner.Transcript
	r := rt.runner
	rt.compacting = true
	rt.mu.Unlock()
	defer func() {
		rt.mu.Lock()
		rt.compacting = false
		rt.mu.Unlock()
	}()
	branch := tr.Branch()
	p := compact.Prepare(branch, s.KeepRecentTokens, reason == ReasonOverflow)
	if p == nil && reason != ReasonManual {
		// As the established harness: an automatic compaction with nothing
		// to summarise is not reported at all.
		return nil, ErrNothingToCompact
	}
	rt.emit(agent.Event{Type: agent.CompactionStart, Reason: reason})
	fail := func(err error) (*agent.CompactionResult, error) {
		rt.emit(agent.Event{Type: agent.CompactionEnd, Reason: reason, Aborted: ctx.Err() != nil, ErrorMessage: "Compaction failed: " + err.Error()})
		return nil, err
	}
	if p == nil {
		return fail(ErrNothingToCompact)
	}
	var res *compact.Result
	if hook != nil {
		cancel, hr, err := hook(ctx, p, branch, focus, reason, willRetry)
		// A hook that failed has been reported by whoever ran it; pi
		// writes the summary itself then, unless its policy is abort.
		var abort *hooks.AbortError
		switch {
		case errors.As(err, &abort):
			return fail(err)
		case err != nil:
		case cancel:
			rt.emit(agent.Event{Type: agent.CompactionEnd, Reason: reason, Aborted: true})
			return nil, errors.New("an extension cancelled the compaction")
		case hr != nil:
			res = hr
		}
	}
	if res == nil {
		route := r.Route
		max := route.MaxTokens
		if max == 0 {
			max = r.MaxTokens
		}
		retry, notices := rt.SummaryRetries("compaction", reason)
		out, err := compact.Summarize(ctx, p, compact.Model{Complete: r.Complete, ModelID: route.ModelID, MaxTokens: max, Cost: route.Cost, Retry: retry, Notices: notices}, focus)
		if err != nil {
			return fail(err)
		}
		res = &out
	}
	sys, ok := session.CurrentSystem(branch)
	var sysp *prompt.Message
	if ok {
		sysp = &sys
	}
	if err := tr.Append(res.Entry(sysp)); err != nil {
		return fail(err)
	}
	msgs := session.ContextMessages(tr.Branch())
	rt.mu.Lock()
	rt.messages = msgs
	rt.mu.Unlock()
	u := res.Usage
	out := &agent.CompactionResult{Summary: res.Summary, FirstKeptEntryID: res.FirstKeptEntryID, TokensBefore: res.TokensBefore,
		EstimatedTokensAfter: res.EstimatedTokensAfter, Usage: &u, Details: res.Files}
	rt.emit(agent.Event{Type: agent.CompactionEnd, Reason: reason, Compaction: out, WillRetry: willRetry})
	return out, nil
}

// overThreshold reports whether the branch's context has grown past the
// threshold: measured from the last answer's usage, unless that answer
// came before the latest compaction (its usage describes the context as
// it was).
func (rt *Runtime) overThreshold() bool {
	rt.mu.Lock()
	s := rt.compaction
	tr := rt.runner.Transcript
	window := rt.runner.Route.ContextWindow
	rt.mu.Unlock()
	if !s.Enabled || window <= 0 || tr == nil {
		return false
	}
	branch, nodes := tr.Projected()
	for i := len(branch) - 1; i >= 0; i-- {
		e := branch[i]
		if e.Type == session.TypeCompaction {
			return false
		}
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == "assistant" {
			break
		}
	}
	return s.ShouldCompact(compact.ContextTokensOf(branch, nodes), window)
}

// overflowPatterns are providers' ways of saying a request did not fit the
// context window (the established harness's list).
var overflowPatterns = lazyre.New(`(?i)prompt (?:is )?too long|prompt exceeds max length|request_too_large|input is too long for requested model|exceeds the context window|exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))|context window exceeded|input token count.*exceeds the maximum|maximum prompt length is \d+|reduce the length of the messages|maximum context length is \d+ tokens|exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?|input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)|exceeds the limit of \d+|exceeds the available context size|greater than the context length|context window exceeds limit|exceeded model token limit|too large for model with \d+ maximum context length|prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?|model_context_window_exceeded|prompt too long; exceeded (?:max )?context length|range of input length should be|context[_ ]length[_ ]exceeded|too many tokens|token limit exceeded|^(?:[\w -]+ API error \(413\):|413(?:\s|:|$))`)

var notOverflow = lazyre.New(`(?i)^(Throttling error|Service unavailable):|rate limit|too many requests`)

// IsOverflow reports whether an error message says the context did not fit.
func IsOverflow(msg string) bool {
	return msg != "" && !notOverflow().MatchString(msg) && overflowPatterns().MatchString(msg)
}

// recoverable reports whether a run that ended with err after adding
// added ran out of context: an overflow error, or a reply cut off at the
// length limit before it reached the output limit.
func (rt *Runtime) recoverable(err error, added []prompt.Message) bool {
	rt.mu.Lock()
	enabled, attempted := rt.compaction.Enabled, rt.overflowTried
	max := rt.runner.Route.MaxTokens
	if max == 0 {
		max = rt.runner.MaxTokens
	}
	rt.mu.Unlock()
	if !enabled || attempted || err == nil {
		return false
	}
	var last *prompt.Message
	for i := len(added) - 1; i >= 0; i-- {
		if added[i].Role == "assistant" {
			last = &added[i]
			break
		}
	}
	if last == nil {
		return false
	}
	var me *agent.ModelError
	switch {
	case errors.As(err, &me):
		return last.StopReason == "error" && IsOverflow(last.ErrorMessage)
	case errors.Is(err, agent.ErrLength):
		return max > 0 && last.Usage != nil && last.Usage.Output < max
	}
	return false
}

// omitFailed leaves the failed attempt (the branch's last assistant
// message) out of the context with a context_edit, as the established
// harness does before an overflow compaction.
func omitFailed(tr *session.Transcript) error {
	branch := tr.Branch()
	for i := len(branch) - 1; i >= 0; i-- {
		e := branch[i]
		if e.Type == session.TypeMessage && e.Message != nil && e.Message.Role == "assistant" {
			if e.ID == "" {
				return nil
			}
			return tr.Append(session.Entry{Type: session.TypeContextEdit, TargetID: e.ID})
		}
	}
	return nil
}
