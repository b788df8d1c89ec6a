package render

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

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
	// Elapsed is how long a running call has run so far (0: not shown).
	Elapsed time.Duration
}

// ExpandKey names the key that expands tool output in the hints drawn
// under collapsed output.
const ExpandKey = "ctrl+o"

// Durations that are not times.
const (
	NotRun  = -1
	Unknown = -2
)

// Lines shown of a collapsed result (ctrl+o shows all of it).
const collapsedLines = 8

// tailFirst reports whether a tool's collapsed output shows its end: a
// command's last lines hold its error and its exit status, where a file's
// first lines are what it is.
func tailFirst(name string) bool { return name == "bash" || name == "$" }

// ToolCall draws a call: a header with the tool and its main argument, then
// its output. Collapsed, a command (running or done) shows its last lines
// and any other tool its first lines, with a line saying how many are
// hidden; an edit shows its diff. Expanded shows everything.
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
	head := mark + " " + st.Title.Render(t.Name)
	if summary != "" {
		head += " " + summary
	}
	switch {
	case t.Done && t.DurationMs >= 0:
		head += st.Dim.Render(fmt.Sprintf(" (%s)", duration(t.DurationMs)))
	case t.Done && t.DurationMs == NotRun:
		head += st.Dim.Render(" (not run)")
	case !t.Done && t.Elapsed > 0:
		head += st.Dim.Render(fmt.Sprintf(" (running %s)", elapsed(t.Elapsed)))
	}
	body := ""
	more := 0
	tail := false
	diff := detailDiff(t.Details)
	switch {
	case diff != "" && !t.IsError:
		body = Diff(diff, width-4, st)
		if !expanded {
			body, more = firstLines(body, 3*collapsedLines)
		}
	default:
		text := strings.TrimRight(expandTabs(termtext.EscapeLines(t.Output)), "\n")
		if !expanded {
			if tail = tailFirst(t.Name) || !t.Done; tail {
				text, more = lastLines(text, collapsedLines)
			} else {
				text, more = firstLines(text, collapsedLines)
			}
		}
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(truncate(l, width-4), " ")
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
		hidden := ""
		if more > 0 {
			word := "more"
			if tail {
				word = "earlier"
			}
			hidden = indent(st.Dim.Render(fmt.Sprintf("… %d %s %s, %s to expand", more, word, plural(more, "line"), ExpandKey)), "  │ ")
		}
		if tail && hidden != "" {
			out += "\n" + hidden
		}
		out += "\n" + trimLines(indent(body, "  │ "))
		if !tail && hidden != "" {
			out += "\n" + hidden
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

// elapsed is a running call's time so far, in whole seconds.
func elapsed(d time.Duration) string {
	s := int(d / time.Second)
	if s < 60 {
		return fmt.Sprintf("%ds", s)
	}
	return fmt.Sprintf("%dm%02ds", s/60, s%60)
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
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
