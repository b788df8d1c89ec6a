package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/termtext"
)

// plainTranscript draws a run for a person reading a plain terminal or a
// log (print mode with --transcript): the user's message, the assistant's
// text, each tool call with the start of its result. It keeps no state
// beyond the call in flight, so long runs cost nothing extra.
type plainTranscript struct {
	mu sync.Mutex
	w  io.Writer
	// previewLines is how many lines of a tool result are shown.
	previewLines int
}

func newPlainTranscript(w io.Writer) *plainTranscript {
	return &plainTranscript{w: w, previewLines: 8}
}

func (p *plainTranscript) event(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Type {
	case agent.MessageEnd:
		m := e.Message
		switch m.Role {
		case "user":
			fmt.Fprintf(p.w, "› %s\n\n", termtext.EscapeLines(firstLines(m.Content.Text(), 6)))
		case "assistant":
			for _, b := range m.Content.Blocks {
				switch b.Type {
				case "thinking":
					if t := strings.TrimSpace(b.Thinking); t != "" {
						fmt.Fprintf(p.w, "  (thinking) %s\n", termtext.EscapeLines(firstLines(t, 3)))
					}
				case "text":
					if t := strings.TrimSpace(b.Text); t != "" {
						fmt.Fprintf(p.w, "%s\n\n", termtext.EscapeLines(t))
					}
				}
			}
			if m.StopReason == "error" || m.StopReason == "aborted" {
				fmt.Fprintf(p.w, "✗ %s: %s\n\n", m.StopReason, esc(m.ErrorMessage))
			}
		}
	case agent.ToolExecutionStart:
		fmt.Fprintf(p.w, "● %s %s\n", e.ToolName, esc(summarizeArgs(e.Args)))
	case agent.ToolExecutionEnd:
		text := ""
		var details json.RawMessage
		if e.Result != nil {
			text = e.Result.Text()
			details = e.Result.Details
		}
		if diff := detailDiff(details); diff != "" {
			text = diff
		}
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		shown := lines
		if len(shown) > p.previewLines {
			shown = shown[:p.previewLines]
		}
		for _, l := range shown {
			fmt.Fprintf(p.w, "  │ %s\n", termtext.EscapeLines(l))
		}
		if more := len(lines) - len(shown); more > 0 {
			fmt.Fprintf(p.w, "  │ … %d more line(s)\n", more)
		}
		status := "✓"
		if e.IsError {
			status = "✗ error"
		}
		if e.DurationMs >= 0 {
			fmt.Fprintf(p.w, "  %s (%d ms)\n\n", status, e.DurationMs)
		} else {
			fmt.Fprintf(p.w, "  %s (not run)\n\n", status)
		}
	case agent.AutoRetryStart:
		fmt.Fprintf(p.w, "… %s; retrying in %d ms (attempt %d of %d)\n", esc(e.ErrorMessage), e.DelayMs, e.Attempt, e.MaxAttempts)
	}
}

// summarizeArgs shows a call's arguments on one line: the command of a
// bash call, the path of a file tool, else the compact JSON.
func summarizeArgs(raw json.RawMessage) string {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return string(raw)
	}
	for _, key := range []string{"command", "path", "pattern"} {
		if v, ok := args[key].(string); ok {
			rest := make([]string, 0, len(args))
			for k, v := range args {
				if k == key || k == "edits" || k == "content" {
					continue
				}
				b, _ := json.Marshal(v)
				rest = append(rest, k+"="+string(b))
			}
			sort.Strings(rest)
			out := firstLines(v, 1)
			if len(rest) > 0 {
				out += "  (" + strings.Join(rest, " ") + ")"
			}
			return out
		}
	}
	b, _ := json.Marshal(args)
	return string(b)
}

// detailDiff returns the unified diff an edit result carries for people.
func detailDiff(details json.RawMessage) string {
	var d struct {
		Diff string `json:"diff"`
	}
	if len(details) == 0 || json.Unmarshal(details, &d) != nil {
		return ""
	}
	return d.Diff
}

func firstLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s
	}
	return strings.Join(lines[:n], "\n") + fmt.Sprintf(" … (%d more lines)", len(lines)-n)
}
