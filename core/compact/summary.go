package compact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
)

// Complete sends one request to the model and returns its answer.
type Complete func(ctx context.Context, req provider.Request) (provider.Response, error)

// The instructions given to the summarising model, in pi's own words; the
// headings are the established harness's, so summaries written by either
// read alike.
const (
	systemPrompt = `You condense conversations between a user and an AI coding assistant into structured notes. Read the conversation you are given and write only the notes, in the format asked for.

You are not a participant: do not carry the conversation on, do not answer questions asked in it, do not add anything but the notes.`

	firstPrompt = `Everything above is the conversation to condense. Write a structured checkpoint from which another model will pick the work up, using exactly these headings:

## Goal
[What the user wants done; list several goals if the session moved between tasks.]

## Constraints & Preferences
- [Requirements, constraints and preferences the user stated]
- [Or "(none)" if there were none]

## Progress
### Done
- [x] [Work finished, changes made]

### In Progress
- [ ] [Work under way]

### Blocked
- [What stops progress, if anything]

## Key Decisions
- **[Decision]**: [Why, briefly]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Data, examples or references needed to go on]
- [Or "(none)" if nothing]

Keep every section short. Quote file paths, function names and error messages exactly.`

	updatePrompt = `Everything above is NEW conversation to merge into the notes given in <previous-summary>. Rules:
- KEEP everything the previous notes say unless it has clearly stopped mattering
- ADD the new progress, decisions and context
- MOVE items from "In Progress" to "Done" once finished
- REWRITE "Next Steps" for where things now stand
- QUOTE file paths, function names and error messages exactly

Use exactly these headings:

## Goal
[The goals so far, plus new ones if the task grew]

## Constraints & Preferences
- [Those so far, plus new ones]

## Progress
### Done
- [x] [Earlier finished items AND newly finished ones]

### In Progress
- [ ] [Work under way now]

### Blocked
- [What blocks progress now; drop what was resolved]

## Key Decisions
- **[Decision]**: [Why, briefly] (keep the earlier ones, add new ones)

## Next Steps
1. [Brought up to date]

## Critical Context
- [Keep what still matters, add what is new]

Keep every section short. Quote file paths, function names and error messages exactly.`

	turnPrefixPrompt = `The messages above open a turn of a conversation that is still going on; the rest of the turn is kept elsewhere and need not be reconstructed.

Write a short checkpoint of what the user asked for and what these messages achieved, to be placed in front of the rest of the turn so it can be followed:

## Original Request
[What the user asked for]

## Progress So Far
- [Decisions taken and work done in these messages]

## Context Needed to Continue
- [What from these messages the rest of the turn depends on]

Say only what the messages above show; do not guess at what came later.`
)

// toolResultMax caps a tool result in the serialised conversation.
const toolResultMax = 2000

// Serialize writes nodes as the plain text a summarising model reads
// (not as chat turns, so it does not carry the conversation on): one block
// per message, "[User]: …", "[Assistant]: …", "[Assistant tool calls]:
// name(key=value, …)", "[Tool result]: …" (cut to 2,000 characters),
// thinking left out.
func Serialize(nodes []session.Node) string {
	var parts []string
	for _, n := range nodes {
		switch n.Role {
		case "user":
			text := n.Content
			if n.Msg != nil {
				text = joinText(n.Msg.Content, "")
			}
			if text != "" {
				parts = append(parts, "[User]: "+text)
			}
		case "assistant":
			if n.Msg == nil {
				if n.Content != "" {
					parts = append(parts, "[Assistant]: "+n.Content)
				}
				continue
			}
			hasText := n.Msg.Content.Blocks == nil
			var calls []string
			for _, b := range n.Msg.Content.Blocks {
				switch b.Type {
				case "text":
					hasText = true
				case "toolCall":
					calls = append(calls, b.Name+"("+callArgs(b.Arguments)+")")
				}
			}
			if hasText {
				parts = append(parts, "[Assistant]: "+joinText(n.Msg.Content, "\n"))
			}
			if len(calls) > 0 {
				parts = append(parts, "[Assistant tool calls]: "+strings.Join(calls, "; "))
			}
		case prompt.RoleToolResult:
			text := n.Content
			if n.Msg != nil {
				text = joinText(n.Msg.Content, "")
			}
			if text != "" {
				parts = append(parts, "[Tool result]: "+truncate(text, toolResultMax))
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

func joinText(c prompt.Content, sep string) string {
	if c.Blocks == nil {
		return c.Str
	}
	var out []string
	for _, b := range c.Blocks {
		if b.Type == "text" {
			out = append(out, b.Text)
		}
	}
	return strings.Join(out, sep)
}

// callArgs writes arguments as key=value pairs in the order the model
// sent them, each value as compact JSON.
func callArgs(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		var b bytes.Buffer
		if json.Compact(&b, v) != nil {
			b.Reset()
			b.Write(v)
		}
		out = append(out, fmt.Sprint(k)+"="+b.String())
	}
	return strings.Join(out, ", ")
}

// truncate keeps the first max characters (UTF-16 units, as the
// established harness counts) and says how many were cut.
func truncate(s string, max int) string {
	n := units(s)
	if n <= max {
		return s
	}
	u := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if u+w > max {
			return fmt.Sprintf("%s\n\n[... %d more characters truncated]", s[:i], n-max)
		}
		u += w
	}
	return s
}

// Model is the model that writes summaries and how to reach it.
type Model struct {
	Complete Complete
	// ModelID and MaxTokens go into the request (MaxTokens: the model's
	// output limit).
	ModelID   string
	MaxTokens int
	// Cost prices the summary's usage (the model's models.json "cost");
	// nil: not priced.
	Cost *provider.ModelCost
	// Retry says how a failed request is tried again (the zero value:
	// never) and Notices who hears of it.
	Retry   Retry
	Notices RetryNotices
}

// ask sends one summary request: the fixed system prompt, the text as the
// only user message, no tools, no prompt-cache writes. A reply cut off,
// failed or calling a tool is an error. A request that fails with a
// transient error is tried again as m.Retry says (the client's own
// retries are off for it, so that one loop counts the attempts and
// reports them as summary retries).
func (m Model) ask(ctx context.Context, text, what string) (string, prompt.Usage, error) {
	if m.Complete == nil {
		return "", prompt.Usage{}, errors.New("no model to summarise with")
	}
	req := provider.Request{
		Model: m.ModelID,
		Messages: []provider.Message{
			{Role: provider.RoleSystem, Content: systemPrompt},
			{Role: "user", Parts: []provider.Part{{Type: "text", Text: text}}},
		},
		MaxTokens:      m.MaxTokens,
		Stream:         true,
		CacheRetention: provider.CacheNone,
		NoRetry:        true,
	}
	max := 0
	if m.Retry.Enabled {
		max = m.Retry.MaxRetries
	}
	retried := false
	finish := func() {
		if retried && m.Notices.Finished != nil {
			m.Notices.Finished()
		}
	}
	for attempt := 0; ; {
		resp, err := m.Complete(ctx, req)
		msg := resp.ErrorMessage
		if msg == "" && err != nil {
			msg = err.Error()
		}
		failed := err != nil || resp.StopReason == "error"
		if !failed || ctx.Err() != nil || resp.StopReason == "aborted" || attempt >= max || !Retryable(msg) {
			finish()
			return m.answer(resp, err, what)
		}
		attempt++
		retried = true
		d := m.Retry.delay(attempt)
		if m.Notices.Scheduled != nil {
			m.Notices.Scheduled(attempt, max, d, msg)
		}
		if serr := m.Retry.sleep(ctx, d); serr != nil {
			finish()
			return "", prompt.Usage{}, fmt.Errorf("%s failed: %s (stopped while waiting to retry: %w)", what, msg, serr)
		}
		if m.Notices.AttemptStart != nil {
			m.Notices.AttemptStart()
		}
	}
}

// answer reads one summary reply.
func (m Model) answer(resp provider.Response, err error, what string) (string, prompt.Usage, error) {
	// Recorded as a reply's usage is (reasoning tokens, who priced it).
	usage := *session.UsageOf(provider.Route{Cost: m.Cost}, resp.Usage)
	switch {
	case err != nil:
		return "", usage, fmt.Errorf("%s failed: %w", what, err)
	case resp.StopReason == "error":
		return "", usage, fmt.Errorf("%s failed: %s", what, resp.ErrorMessage)
	case resp.StopReason == "length":
		return "", usage, fmt.Errorf("%s failed: the reply hit the output-token limit, so the summary is incomplete", what)
	case len(resp.ToolCalls) > 0:
		return "", usage, fmt.Errorf("%s failed: the model called a tool instead of answering", what)
	}
	return resp.Text, usage, nil
}

// addUsage sums two summary requests' usage as the established harness
// does: a count either side reports is kept, and the total is the
// provider's only when both sides' are.
func addUsage(a, b prompt.Usage) prompt.Usage {
	billed := a.Cost.TotalFromProvider != nil && *a.Cost.TotalFromProvider && b.Cost.TotalFromProvider != nil && *b.Cost.TotalFromProvider
	return prompt.Usage{Input: a.Input + b.Input, Output: a.Output + b.Output, CacheRead: a.CacheRead + b.CacheRead,
		CacheWrite: a.CacheWrite + b.CacheWrite, TotalTokens: a.TotalTokens + b.TotalTokens,
		Reasoning: addCounts(a.Reasoning, b.Reasoning), CacheWrite1h: addCounts(a.CacheWrite1h, b.CacheWrite1h),
		Cost: prompt.Cost{Input: a.Cost.Input + b.Cost.Input, Output: a.Cost.Output + b.Cost.Output, CacheRead: a.Cost.CacheRead + b.Cost.CacheRead,
			CacheWrite: a.Cost.CacheWrite + b.Cost.CacheWrite, Total: a.Cost.Total + b.Cost.Total, TotalFromProvider: &billed}}
}

// addCounts sums two optional counts: nil when neither side has one.
func addCounts(a, b *int) *int {
	if a == nil && b == nil {
		return nil
	}
	n := 0
	for _, p := range []*int{a, b} {
		if p != nil {
			n += *p
		}
	}
	return &n
}

// historyRequest is the user message of a (first or follow-up) summary.
func historyRequest(nodes []session.Node, previous string, hasPrevious bool, focus string) string {
	base := firstPrompt
	if hasPrevious {
		base = updatePrompt
	}
	if focus != "" {
		base += "\n\nAdditional focus: " + focus
	}
	text := "<conversation>\n" + Serialize(nodes) + "\n</conversation>\n\n"
	if hasPrevious {
		text += "<previous-summary>\n" + previous + "\n</previous-summary>\n\n"
	}
	return text + base
}

// fileTags are the file lists appended to a summary.
func fileTags(f session.FileLists) string {
	var parts []string
	if len(f.ReadFiles) > 0 {
		parts = append(parts, "<read-files>\n"+strings.Join(f.ReadFiles, "\n")+"\n</read-files>")
	}
	if len(f.ModifiedFiles) > 0 {
		parts = append(parts, "<modified-files>\n"+strings.Join(f.ModifiedFiles, "\n")+"\n</modified-files>")
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(parts, "\n\n")
}

// Result is a finished compaction, ready to be stored.
type Result struct {
	Summary          string
	FirstKeptEntryID string
	TokensBefore     int
	// EstimatedTokensAfter is the context's estimated size with the
	// summary in place of what it stands for.
	EstimatedTokensAfter int
	Usage                prompt.Usage
	Files                session.FileLists
	FromHook             bool
}

// Summarize writes the summary of a preparation: the whole turns (folded
// into the previous summary when there is one) and, for a split turn, the
// turn's beginning on its own; then the file lists. focus is what the
// person asked the summary to concentrate on ("" for nothing).
func Summarize(ctx context.Context, p *Preparation, m Model, focus string) (Result, error) {
	var summary string
	var usage prompt.Usage
	if p.SplitTurn && len(p.TurnPrefix) > 0 {
		history := "No prior history."
		if p.HasPrevious {
			history = p.PreviousSummary
		}
		if len(p.ToSummarize) > 0 {
			text, u, err := m.ask(ctx, historyRequest(p.ToSummarize, p.PreviousSummary, p.HasPrevious, focus), "Summarization")
			if err != nil {
				return Result{}, err
			}
			history, usage = text, u
		}
		req := "# Conversation\n" + Serialize(p.TurnPrefix) + "\n\n# Instructions\n" + turnPrefixPrompt
		if focus != "" {
			req += "\n\nAdditional focus: " + focus
		}
		prefix, u, err := m.ask(ctx, req, "Turn prefix summarization")
		if err != nil {
			return Result{}, err
		}
		summary = history + "\n\n---\n\n**Turn Context (split turn):**\n\n" + prefix
		usage = addUsage(usage, u)
	} else {
		text, u, err := m.ask(ctx, historyRequest(p.ToSummarize, p.PreviousSummary, p.HasPrevious, focus), "Summarization")
		if err != nil {
			return Result{}, err
		}
		summary, usage = text, u
	}
	summary += fileTags(p.Files)
	return Result{
		Summary: summary, FirstKeptEntryID: p.FirstKeptEntryID, TokensBefore: p.TokensBefore,
		EstimatedTokensAfter: ceilDiv4(units(summary)) + p.KeptTokens,
		Usage:                usage, Files: p.Files,
	}, nil
}

// Entry is the compaction entry for r. system is the replay of the
// branch's system messages (the prompt as it stands), which the
// established harness keeps in the entry.
func (r Result) Entry(system *prompt.Message) session.Entry {
	u := r.Usage
	files := r.Files
	return session.Entry{Type: session.TypeCompaction, Summary: r.Summary, FirstKeptEntryID: r.FirstKeptEntryID,
		TokensBefore: r.TokensBefore, SystemMessage: system, Usage: &u, Files: &files, FromHook: r.FromHook}
}
