package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/termtext"
	"github.com/spf13/pflag"
)

const sessionUsage = `Usage:
  pi session list [--all] [--cwd DIR] [--json]   sessions of this directory, newest first
  pi session show FILE [--request N] [--json]     a transcript and the requests it replays to
`

func (a *app) cmdSession(ctx context.Context, args []string) error {
	if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
		fmt.Fprint(a.stdout, sessionUsage)
		return errHelp
	}
	if len(args) > 0 && args[0] == "list" {
		return a.cmdSessionList(args[1:])
	}
	if len(args) == 0 || args[0] != "show" {
		return usagef("session: want a subcommand\n%s", sessionUsage)
	}
	fs := pflag.NewFlagSet("session show", pflag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print JSON")
	req := fs.Int("request", -1, "show the exact messages of request N (0 is the first)")
	fs.SetOutput(new(strings.Builder))
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return a.helpOr(err, "pi session show FILE [flags]", fs)
		}
		return usagef("session show: %v", err)
	}
	if fs.NArg() != 1 {
		return usagef("session show needs exactly one FILE")
	}
	tr, err := session.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	type requestJSON struct {
		Index    int                 `json:"index"`
		Route    string              `json:"route"`
		Messages []provider.Message  `json:"messages"`
		Tools    []provider.ToolSpec `json:"tools"`
	}
	branch, err := tr.FullBranch()
	if err != nil {
		return err
	}
	entries, err := tr.Entries()
	if err != nil {
		return err
	}
	var requests []requestJSON
	for k := 0; ; k++ {
		r, ok := session.RequestAt(branch, k)
		if !ok {
			break
		}
		if *req < 0 || *req == k {
			requests = append(requests, requestJSON{Index: k, Route: r.Route, Messages: r.Messages, Tools: r.Tools})
		}
	}
	if *req >= 0 && len(requests) == 0 {
		return fmt.Errorf("session %s has no request %d", fs.Arg(0), *req)
	}
	if *asJSON {
		out := struct {
			Header   session.Header    `json:"header"`
			Entries  []session.Entry   `json:"entries"`
			Problems []session.Problem `json:"problems"`
			Requests []requestJSON     `json:"requests"`
		}{tr.Header, entries, tr.Problems, requests}
		if *req >= 0 {
			out.Entries = nil
		}
		return writeJSON(a.stdout, out)
	}
	for _, p := range tr.Problems {
		fmt.Fprintf(a.stderr, "pi: warning: %s:%d: %s\n", esc(tr.Path), p.Line, esc(p.Message))
	}
	if *req < 0 {
		n := session.Requests(branch)
		fmt.Fprintf(a.stdout, "session %s  cwd %s  started %s\n", esc(tr.Header.ID), esc(tr.Header.Cwd), esc(tr.Header.Timestamp))
		fmt.Fprintf(a.stdout, "%d %s (--request N shows one, 0 to %d)\n\n", n, plural(n, "request", "requests"), max(n-1, 0))
		for i, e := range entries {
			fmt.Fprintf(a.stdout, "%3d  %s\n", i, describeEntry(e))
		}
		fmt.Fprintln(a.stdout)
	}
	for _, r := range requests {
		fmt.Fprintf(a.stdout, "request %d → %s\n", r.Index, esc(r.Route))
		for _, t := range r.Tools {
			fmt.Fprintf(a.stdout, "  (tool) %s\n", esc(t.Name))
		}
		for _, m := range r.Messages {
			fmt.Fprintf(a.stdout, "  [%s] %s\n", esc(m.Role), indent(termtext.EscapeLines(describeMessage(m))))
		}
	}
	return nil
}

func describeEntry(e session.Entry) string {
	switch e.Type {
	case session.TypeMessage:
		if e.Message == nil {
			return "message (empty)"
		}
		if e.Message.Role == "system" {
			var names []string
			for _, p := range e.Message.Sections {
				if p.Text == nil {
					names = append(names, "-"+esc(p.Name))
				} else {
					names = append(names, esc(p.Name))
				}
			}
			return fmt.Sprintf("system  sections: %s", strings.Join(names, " "))
		}
		from := ""
		if e.Extension != "" {
			from = " (from extension:" + esc(e.Extension) + ")"
		}
		return fmt.Sprintf("%-9s%s %s", esc(e.Message.Role), from, strconv.Quote(truncate(e.Message.Content.Text(), 70)))
	case session.TypeProjection:
		var ops []string
		for _, c := range e.Commits {
			if c.Op == "replace" {
				ops = append(ops, fmt.Sprintf("replace #%d (%d bytes)", c.Seq, len(c.Text)))
			} else {
				ops = append(ops, fmt.Sprintf("append (%d bytes)", len(c.Text)))
			}
		}
		return "projection  " + strings.Join(ops, ", ")
	case session.TypeContext:
		return "context  " + strconv.Quote(truncate(e.Text, 70))
	case session.TypeRequest:
		if e.Forced != "" {
			return "request → " + esc(e.Route) + "  (system text forced by extension:" + esc(e.Forced) + "; the forced text is not stored)"
		}
		return "request → " + esc(e.Route)
	case session.TypeError:
		return "error  " + esc(e.Text)
	case session.TypeCompaction:
		return fmt.Sprintf("compaction  keeps from %s, %d tokens before: %s", esc(e.FirstKeptEntryID), e.TokensBefore, strconv.Quote(truncate(e.Summary, 60)))
	case session.TypeBranchSummary:
		return fmt.Sprintf("branch summary  from %s: %s", esc(e.FromID), strconv.Quote(truncate(e.Summary, 60)))
	case session.TypeCustomMessage:
		text := ""
		if e.Content != nil {
			text = e.Content.Text()
		}
		return fmt.Sprintf("custom message (%s)  %s", esc(e.CustomType), strconv.Quote(truncate(text, 60)))
	case session.TypeContextEdit:
		if e.Replacement == nil {
			return "context edit  omits " + esc(e.TargetID)
		}
		return "context edit  replaces " + esc(e.TargetID)
	case session.TypeLabel:
		return fmt.Sprintf("label  %s on %s", strconv.Quote(e.Label), esc(e.TargetID))
	case session.TypeSessionInfo:
		return "session name  " + strconv.Quote(e.Name)
	}
	return esc(e.Type) + " (passed through)"
}

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n      ") }

// describeMessage is one provider message for people: its text, tool calls
// and results.
func describeMessage(m provider.Message) string {
	var parts []string
	if m.Content != "" {
		parts = append(parts, m.Content)
	}
	for _, p := range m.Parts {
		switch p.Type {
		case "text":
			parts = append(parts, p.Text)
		case "image":
			parts = append(parts, fmt.Sprintf("(image %s, %d bytes base64)", p.MimeType, len(p.Data)))
		}
	}
	for _, c := range m.ToolCalls {
		parts = append(parts, fmt.Sprintf("→ %s %s (%s)", c.Name, c.Arguments, c.ID))
	}
	s := strings.Join(parts, "\n")
	if m.Role == provider.RoleTool {
		status := "ok"
		if m.IsError {
			status = "error"
		}
		s = fmt.Sprintf("%s %s: %s", m.ToolCallID, status, s)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
