package render

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	"github.com/piwasm/pi/core/termtext"
)

// Markdown renders assistant text for one width. Building a glamour
// renderer is the costly part, so one is kept per width.
type Markdown struct {
	width int
	style string
	// config, when set, is a theme's style (see FromTheme), used instead
	// of the standard style.
	config *ansi.StyleConfig
	r      *glamour.TermRenderer
}

// NewMarkdown returns a renderer wrapping at width columns.
func NewMarkdown(width int, style string) *Markdown {
	if width < 20 {
		width = 20
	}
	return &Markdown{width: width, style: style}
}

// Width is the wrapping width.
func (m *Markdown) Width() int { return m.width }

// Render renders text. Text that glamour cannot render is shown as it is,
// wrapped: a reply is never lost to a rendering problem.
func (m *Markdown) Render(text string) string {
	text = expandTabs(termtext.EscapeLines(strings.TrimSpace(text)))
	if text == "" {
		return ""
	}
	if m.r == nil {
		opts := []glamour.TermRendererOption{glamour.WithStandardStyle(m.style), glamour.WithWordWrap(m.width - 2)}
		if m.config != nil {
			// A theme's colours are exact; the terminal's profile reduces
			// them (chroma's default formatter would round to 256 first).
			opts = append(opts, glamour.WithStyles(*m.config), glamour.WithChromaFormatter("terminal16m"))
		}
		r, err := glamour.NewTermRenderer(opts...)
		if err != nil {
			return wrap(text, m.width)
		}
		m.r = r
	}
	out, err := m.r.Render(text)
	if err != nil {
		return wrap(text, m.width)
	}
	return trimBlank(out)
}

// trimBlank drops the blank lines glamour puts around a document and the
// spaces it pads lines with.
func trimBlank(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
