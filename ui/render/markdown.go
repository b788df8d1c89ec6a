package render

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
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
	// codeIndent is markdown.codeBlockIndent; custom is set when it is not
	// glamour's own margin, and code renders code blocks for it.
	codeIndent string
	custom     bool
	code       *glamour.TermRenderer
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
	if m.custom {
		out, err := m.renderCustom(text)
		if err != nil {
			return wrap(text, m.width)
		}
		return out
	}
	r, err := m.renderer()
	if err != nil {
		return wrap(text, m.width)
	}
	out, err := r.Render(text)
	if err != nil {
		return wrap(text, m.width)
	}
	return trimBlank(out)
}

// renderer is the glamour renderer of the width, built once.
func (m *Markdown) renderer() (*glamour.TermRenderer, error) {
	if m.r == nil {
		r, err := glamour.NewTermRenderer(m.options(m.width-2, nil)...)
		if err != nil {
			return nil, err
		}
		m.r = r
	}
	return m.r, nil
}

// options are the renderer's options for a wrapping width; adjust, when
// set, changes a copy of the style first.
func (m *Markdown) options(wrap int, adjust func(*ansi.StyleConfig)) []glamour.TermRendererOption {
	if m.config == nil && adjust == nil {
		return []glamour.TermRendererOption{glamour.WithStandardStyle(m.style), glamour.WithWordWrap(wrap)}
	}
	var c ansi.StyleConfig
	switch cfg, ok := styles.DefaultStyles[m.style]; {
	case m.config != nil:
		c = *m.config
	case ok:
		c = *cfg
	default:
		c = styles.NoTTYStyleConfig
	}
	if adjust != nil {
		adjust(&c)
	}
	opts := []glamour.TermRendererOption{glamour.WithStyles(c), glamour.WithWordWrap(wrap)}
	if m.config != nil {
		// A theme's colours are exact; the terminal's profile reduces
		// them (chroma's default formatter would round to 256 first).
		opts = append(opts, glamour.WithChromaFormatter("terminal16m"))
	}
	return opts
}

// trimBlank drops the blank lines glamour puts around a document and the
// spaces it pads lines with.
func trimBlank(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = trimRight(l)
	}
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
