package render

import (
	"strings"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/termtext"
)

// User draws a message the person sent.
func User(text string, width int, st Styles) string {
	text = strings.TrimRight(termtext.EscapeLines(text), "\n")
	return indent(wrap(text, width-2), "  ")
	// (the marker is drawn by the caller's style on the first line)
}

// UserLine draws a user message with its marker.
func UserLine(text string, width int, st Styles) string {
	body := User(text, width, st)
	if body == "" {
		return panel(st.User.Render("›"), width, st.UserBg)
	}
	lines := strings.Split(body[1:], "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = st.UserText.Render(l)
		}
	}
	return panel(st.User.Render("›")+strings.Join(lines, "\n"), width, st.UserBg)
}

// Assistant draws an assistant message: thinking dimmed, text as
// markdown, an error or abort said plainly. Tool calls are drawn apart (as
// they run).
func Assistant(m prompt.Message, md *Markdown, st Styles) string {
	var parts []string
	blocks := m.Content.Blocks
	if blocks == nil && m.Content.Str != "" {
		blocks = []prompt.Block{{Type: "text", Text: m.Content.Str}}
	}
	for _, b := range blocks {
		switch b.Type {
		case "thinking":
			if t := strings.TrimSpace(b.Thinking); t != "" && st.HideThinking {
				parts = append(parts, st.Thinking.Render("  thinking… (ctrl+t shows it)"))
			} else if t != "" {
				parts = append(parts, st.Thinking.Render(indent(wrap(termtext.EscapeLines(t), md.Width()-2), "  ")))
			}
		case "text":
			if r := md.Render(b.Text); r != "" {
				parts = append(parts, r)
			}
		}
	}
	switch m.StopReason {
	case "aborted":
		parts = append(parts, st.Error.Render("  ✗ aborted"))
	case "error":
		parts = append(parts, st.Error.Render("  ✗ "+termtext.Escape(m.ErrorMessage)))
	case "length":
		parts = append(parts, st.Error.Render("  ✗ the reply was cut off at the output-token limit"))
	}
	return strings.Join(parts, "\n")
}

// Notice draws a line from pi itself (a command's answer, what /reload
// changed).
func Notice(text string, width int, st Styles) string {
	return st.Dim.Render(indent(wrap(termtext.EscapeLines(strings.TrimRight(text, "\n")), width-2), "  "))
}
