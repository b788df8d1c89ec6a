package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/piwasm/pi/core/compact"
	"github.com/piwasm/pi/core/session"
)

// Edit changes the session while it is idle — a label, a name, a leaf
// moved — and rebuilds the conversation from the active branch after.
func (rt *Runtime) Edit(fn func(tr *session.Transcript) error) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.running || rt.navigating {
		return ErrBusy
	}
	err := fn(rt.runner.Transcript)
	rt.messages = branchMessages(rt.runner.Transcript)
	return err
}

// Summarizer writes the summary of an abandoned branch (entries oldest
// first). instructions focus it; with replace they stand in for the
// built-in request.
type Summarizer func(ctx context.Context, entries []session.Entry, instructions string, replace bool) (session.BranchSummary, error)

// NavigateOptions are the choices of a move in the session tree.
type NavigateOptions struct {
	// Summarize asks for a branch_summary of the branch left, written by
	// Summarizer.
	Summarize    bool
	Summarizer   Summarizer
	Instructions string
	Replace      bool
	// Label is set on the summary entry, or on the target without one.
	Label string
}

// NavigateResult says what a move did: EditorText is a user message's
// text given back for editing (the move went to its parent); Summary is
// the branch_summary entry written, if any.
type NavigateResult struct {
	EditorText string
	Summary    *session.Entry
}

// Navigate moves the session to entry target, as the established
// harness's /tree does: to a user message's (or extension message's)
// parent with its text for the editor, to any other entry itself. With a
// summary, the branch left (from the old leaf back to the common
// ancestor) is summarised into a branch_summary entry at the new
// position; without one, nothing is written until the next entry. Refused
// while the agent works; prompts are refused while a summary is written.
// A summary stopped (ctx, or Abort) ends it with an error wrapping
// context.Canceled, and nothing moves.
func (rt *Runtime) Navigate(ctx context.Context, target string, opts NavigateOptions) (NavigateResult, error) {
	rt.mu.Lock()
	if rt.running || rt.navigating {
		rt.mu.Unlock()
		return NavigateResult{}, errors.New("Wait for the current response to finish before navigating the session tree.")
	}
	tr := rt.runner.Transcript
	old := tr.LeafID()
	if target == old {
		rt.mu.Unlock()
		return NavigateResult{}, nil
	}
	e, ok := tr.Lookup(target)
	if !ok {
		rt.mu.Unlock()
		return NavigateResult{}, fmt.Errorf("Entry %s not found", target)
	}
	// Abort stops a summary being written, as it stops a run.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rt.navigating, rt.navCancel = true, cancel
	rt.mu.Unlock()
	defer func() {
		rt.mu.Lock()
		rt.navigating, rt.navCancel = false, nil
		rt.messages = branchMessages(rt.runner.Transcript)
		rt.mu.Unlock()
	}()

	var res NavigateResult
	var summary *session.BranchSummary
	if opts.Summarize {
		if opts.Summarizer == nil {
			return NavigateResult{}, errors.New("no model available for summarization")
		}
		if left := compact.BranchEntries(tr.Snapshot(), old, target); len(left) > 0 {
			s, err := opts.Summarizer(ctx, left, opts.Instructions, opts.Replace)
			if ctx.Err() != nil {
				return NavigateResult{}, fmt.Errorf("branch summary: %w", context.Canceled)
			}
			if err != nil {
				return NavigateResult{}, err
			}
			summary = &s
		}
	}
	leaf := target
	switch {
	case e.Type == session.TypeMessage && e.Message.Role == "user":
		leaf, res.EditorText = e.ParentID, e.Message.Content.Text()
	case e.Type == session.TypeCustomMessage:
		leaf = e.ParentID
		if e.Content != nil {
			res.EditorText = e.Content.Text()
		}
	}
	if summary != nil && summary.Summary != "" {
		se, err := tr.BranchWithSummary(leaf, *summary)
		if err != nil {
			return NavigateResult{}, err
		}
		res.Summary = &se
		if opts.Label != "" {
			if err := tr.SetLabel(se.ID, opts.Label); err != nil {
				return res, err
			}
		}
		return res, nil
	}
	if err := tr.SetLeaf(leaf); err != nil {
		return NavigateResult{}, err
	}
	if opts.Label != "" {
		if err := tr.SetLabel(target, opts.Label); err != nil {
			return res, err
		}
	}
	return res, nil
}

// Fork continues in a new session file beside the current one, as the
// established harness's /fork and /clone do: from the user message
// entryID (the new session ends at its parent and the message's text is
// returned for the editor) or, with at, a copy of the branch up to and
// including entryID. The old session is closed and left as it was.
func (rt *Runtime) Fork(entryID string, at bool) (text string, err error) {
	// Extensions are asked outside the lock (a slow one must not stop the
	// UI reading the state) and told afterwards.
	h, prev, err := rt.idleHook()
	if err != nil {
		return "", err
	}
	if h != nil {
		position := "before"
		if at {
			position = "at"
		}
		if err := h.BeforeFork(rt.base, entryID, position, prev); err != nil {
			return "", err
		}
		defer func() {
			if err == nil {
				cur := rt.Transcript().Path
				h.Shutdown(rt.base, ReplaceFork, prev, cur)
				h.Start(rt.base, ReplaceFork, prev, cur)
			}
		}()
	}
	return rt.fork(entryID, at)
}

func (rt *Runtime) fork(entryID string, at bool) (text string, err error) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.running || rt.navigating {
		return "", ErrBusy
	}
	tr := rt.runner.Transcript
	leaf, text, err := tr.ForkTarget(entryID, at)
	if err != nil {
		return "", err
	}
	nt, err := tr.ForkBeside(leaf, time.Now())
	if err != nil {
		return "", err
	}
	rt.runner.Transcript = nt
	rt.messages = branchMessages(nt)
	rt.last, rt.lastErr = nil, nil
	if err := tr.Close(); err != nil {
		return text, fmt.Errorf("close the session forked from: %w", err)
	}
	return text, nil
}
