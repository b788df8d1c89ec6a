package render

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/piwasm/pi/core/termtext"
	"github.com/piwasm/pi/ui/termcaps"
)

// Tool is one tool call as the session draws it, running or finished.
type Tool struct {
	Name string
	Args json.RawMessage
	// Link, when set, makes the header's argument an OSC 8 link to it (the
	// file a read, write, edit or ls concerns, where the terminal shows
	// links).
	Link string
	// Output is the result text so far (partial while running).
	Output string
	// Details is the result's details (an edit's diff).
	Details json.RawMessage
	Done    bool
	IsError bool
	// DurationMs is NotRun when the call did not run, Unknown when the
	// time was not measured (a resumed session).
	DurationMs int64
}

// Durations that are not times.
const (
	NotRun  = -1
	Unknown = -2
)

// Lines shown of a collapsed result: the tail of a running command, the
// head of a finished result.
const (
	collapsedTail = 5
	collapsedHead = 8
)

// ToolCall draws a call: a header with the tool and its main argument, then
// its output. Collapsed, a running bash shows its last lines (a live tail)
// and a finished call its first lines; an edit always shows its diff.
// Expanded shows everything.
func ToolCall(t Tool, expanded bool, width int, st Styles) string {
	mark := st.Accent.Render("●")
	switch {
	case t.Done && t.IsError:
		mark = st.Error.Render("✗")
	case t.Done:
		mark = st.Success.Render("✓")
	}
	summary := truncate(termtext.Escape(Summary(t.Args)), width-len(t.Name)-3)
	if t.Link != "" {
		summary = termcaps.Hyperlink(summary, t.Link)
	}
	head := mark + " " + st.Title.Render(t.Name) + " " + summary
	switch {
	case t.Done && t.DurationMs >= 0:
		head += st.Dim.Render(fmt.Sprintf(" (%s)", duration(t.DurationMs)))
	case t.Done && t.DurationMs == NotRun:
		head += st.Dim.Render(" (not run)")
	}
	body := ""
	more := 0
	diff := detailDiff(t.Details)
	switch {
	case diff != "" && !t.IsError:
		body = Diff(diff, width-4, st)
		if !expanded {
			body, more = firstLines(body, 3*collapsedHead)
		}
	default:
		text := strings.TrimRight(expandTabs(termtext.EscapeLines(t.Output)), "\n")
		if !expanded {
			if t.Done {
				text, more = firstLines(text, collapsedHead)
			} else {
				text, more = lastLines(text, collapsedTail)
			}
		}
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			lines[i] = truncate(l, width-4)
		}
		body = strings.Join(lines, "\n")
		if t.IsError {
			body = st.Error.Render(body)
		} else {
			body = st.ToolOutput.Render(body)
		}
	}
	out := head
	if strings.TrimSpace(stripANSI(body)) != "" {
		if more > 0 && !t.Done {
			out += "\n" + indent(st.Dim.Render(fmt.Sprintf("… %d earlier line(s)", more)), "  │ ")
		}
		out += "\n" + indent(body, "  │ ")
		if more > 0 && t.Done {
			out += "\n" + indent(st.Dim.Render(fmt.Sprintf("… %d more line(s) (ctrl+o expands)", more)), "  │ ")
		}
	}
	bg := st.ToolPending
	switch {
	case t.Done && t.IsError:
		bg = st.ToolError
	case t.Done:
		bg = st.ToolSuccess
	}
	return panel(out, width, bg)
}

func duration(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

// Summary shows a call's arguments on one line: a bash command, a file
// tool's path (with the other arguments after it), else compact JSON.
func Summary(raw json.RawMessage) string {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return string(raw)
	}
	for _, key := range []string{"command", "path", "pattern"} {
		v, ok := args[key].(string)
		if !ok {
			continue
		}
		var rest []string
		for k, x := range args {
			if k == key || k == "edits" || k == "content" || k == "oldText" || k == "newText" {
				continue
			}
			b, _ := json.Marshal(x)
			rest = append(rest, k+"="+string(b))
		}
		sort.Strings(rest)
		out, n := firstLines(v, 1)
		if n > 0 {
			out += " …"
		}
		if len(rest) > 0 {
			out += "  " + strings.Join(rest, " ")
		}
		return out
	}
	b, _ := json.Marshal(args)
	return string(b)
}

func detailDiff(details json.RawMessage) string {
	var d struct {
		Diff string `json:"diff"`
	}
	if len(details) == 0 || json.Unmarshal(details, &d) != nil {
		return ""
	}
	return d.Diff
}
