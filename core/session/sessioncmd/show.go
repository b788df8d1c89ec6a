package sessioncmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/termtext"
)

// Show prints tr (read from name) to stdout: its entries and every request
// it replays to, or only request req when req ≥ 0; as JSON with asJSON.
// Problems found reading the file are warned about on stderr.
func Show(stdout, stderr io.Writer, tr *session.Transcript, name string, req int, asJSON bool) error {
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
		if req < 0 || req == k {
			requests = append(requests, requestJSON{Index: k, Route: r.Route, Messages: r.Messages, Tools: r.Tools})
		}
	}
	if req >= 0 && len(requests) == 0 {
		return fmt.Errorf("session %s has no request %d", name, req)
	}
	if asJSON {
		out := struct {
			Header   session.Header    `json:"header"`
			Entries  []session.Entry   `json:"entries"`
			Problems []session.Problem `json:"problems"`
			Requests []requestJSON     `json:"requests"`
		}{tr.Header, entries, tr.Problems, requests}
		if req >= 0 {
			out.Entries = nil
		}
		return writeJSON(stdout, out)
	}
	for _, p := range tr.Problems {
		fmt.Fprintf(stderr, "pi: warning: %s:%d: %s\n", esc(tr.Path), p.Line, esc(p.Message))
	}
	if req < 0 {
		n := session.Requests(branch)
		fmt.Fprintf(stdout, "session %s  cwd %s  started %s\n", esc(tr.Header.ID), esc(tr.Header.Cwd), esc(tr.Header.Timestamp))
		fmt.Fprintf(stdout, "%d %s (--request N shows one, 0 to %d)\n\n", n, plural(n, "request", "requests"), max(n-1, 0))
		for i, e := range entries {
			fmt.Fprintf(stdout, "%3d  %s\n", i, describeEntry(e))
		}
		fmt.Fprintln(stdout)
	}
	for _, r := range requests {
		fmt.Fprintf(stdout, "request %d → %s\n", r.Index, esc(r.Route))
		for _, t := range r.Tools {
			fmt.Fprintf(stdout, "  (tool) %s\n", esc(t.Name))
		}
		for _, m := range r.Messages {
			fmt.Fprintf(stdout, "  [%s] %s\n", esc(m.Role), indent(termtext.EscapeLines(describeMessage(m))))
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

func esc(s string) string { return termtext.Escape(s) }

// truncate keeps the first n runes of s on one line.
func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len([]rune(s)) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
