package render

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

func stripANSI(s string) string { return ansi.Strip(s) }

// wrap breaks text at width, keeping words whole where it can.
func wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	return ansi.Wrap(s, width, " ")
}

// truncate cuts a line to width cells with an ellipsis.
func truncate(s string, width int) string {
	if width <= 0 || lipgloss.Width(s) <= width {
		return s
	}
	return ansi.Truncate(s, width, "…")
}

// indent prefixes every line.
func indent(s, prefix string) string {
	if s == "" {
		return s
	}
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// lastLines returns the last n lines of s and how many were left out.
func lastLines(s string, n int) (string, int) {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s, 0
	}
	return strings.Join(lines[len(lines)-n:], "\n"), len(lines) - n
}

// firstLines returns the first n lines of s and how many were left out.
func firstLines(s string, n int) (string, int) {
	lines := strings.Split(s, "\n")
	if len(lines) <= n {
		return s, 0
	}
	return strings.Join(lines[:n], "\n"), len(lines) - n
}

// expandTabs turns tabs into spaces (4 columns) so widths are known.
func expandTabs(s string) string { return strings.ReplaceAll(s, "\t", "    ") }

// panel draws text on the background of bg, each line filled to width.
// The colours inside the text end with a full reset, which would end the
// background too, so it is set again after each one. Without a
// background in bg the text is returned as it is.
func panel(text string, width int, bg lipgloss.Style) string {
	if !hasBackground(bg) {
		return text
	}
	open, _, _ := strings.Cut(bg.Render("\x00"), "\x00")
	if open == "" {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		pad := max(width-ansi.StringWidth(l), 0)
		l = strings.ReplaceAll(l, "\x1b[m", "\x1b[m"+open)
		l = strings.ReplaceAll(l, "\x1b[0m", "\x1b[0m"+open)
		lines[i] = open + l + strings.Repeat(" ", pad) + "\x1b[m"
	}
	return strings.Join(lines, "\n")
}

// TrimLines drops the blanks at the end of every line of a drawing, colour
// codes or not: a line padded to the window's width wraps in two when the
// window narrows, and copied text would carry the spaces.
func TrimLines(s string) string { return trimLines(s) }

func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = trimRight(l)
	}
	return strings.Join(lines, "\n")
}

// trimRight drops a line's trailing spaces; the colour and link codes
// among them stay, so what they open or close still is.
func trimRight(l string) string {
	if !strings.Contains(l, "\x1b") {
		return strings.TrimRight(l, " ")
	}
	type piece struct {
		s     string
		blank bool // a space, dropped when nothing visible follows
	}
	var pieces []piece
	last := -1 // the last visible piece that is not a space
	var state byte
	for rest := l; rest != ""; {
		seq, width, n, st := ansi.DecodeSequence(rest, state, nil)
		if n <= 0 {
			n, seq = len(rest), rest
		}
		state = st
		blank := width > 0 && seq == " "
		if width > 0 && !blank {
			last = len(pieces)
		}
		pieces = append(pieces, piece{seq, blank})
		rest = rest[n:]
	}
	var b strings.Builder
	for i, p := range pieces {
		if i > last && p.blank {
			continue
		}
		b.WriteString(p.s)
	}
	return b.String()
}
