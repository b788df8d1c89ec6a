package render

import (
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
)

// DefaultCodeBlockIndent is what markdown.codeBlockIndent is when unset:
// glamour's own code-block margin draws exactly this.
const DefaultCodeBlockIndent = "  "

// docMargin is the left margin glamour's standard styles give a document.
const docMargin = "  "

// WithCodeBlockIndent makes code blocks start with indent instead of
// glamour's two-space margin (markdown.codeBlockIndent), and returns m.
func (m *Markdown) WithCodeBlockIndent(indent string) *Markdown {
	m.codeIndent = indent
	m.custom = indent != DefaultCodeBlockIndent
	return m
}

// segment is a run of markdown source: a fenced code block or the text
// between two.
type segment struct {
	text string
	code bool
}

// splitFences cuts text at its top-level fenced code blocks (a fence of
// three or more backticks or tildes at the start of a line, closed by a
// fence of the same character at least as long, or by the end of the
// text, as CommonMark has it). Fences indented in a list item stay in the
// text around them, and glamour lays them out in their item.
func splitFences(text string) []segment {
	var out []segment
	var cur strings.Builder
	fence := ""
	flush := func(code bool) {
		if cur.Len() > 0 {
			out = append(out, segment{text: cur.String(), code: code})
			cur.Reset()
		}
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		bare := strings.TrimRight(line, "\r\n")
		switch {
		case fence == "":
			if f := fenceOf(bare); f != "" {
				flush(false)
				fence = f
			}
			cur.WriteString(line)
		default:
			cur.WriteString(line)
			if f := fenceOf(bare); f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(bare) == f {
				flush(true)
				fence = ""
			}
		}
	}
	flush(fence != "")
	return out
}

// fenceOf returns the run of backticks or tildes a line opens a fence
// with ("" when it does not).
func fenceOf(line string) string {
	if len(line) < 3 || (line[0] != '`' && line[0] != '~') {
		return ""
	}
	n := 0
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 || (line[0] == '`' && strings.Contains(line[n:], "`")) {
		return ""
	}
	return line[:n]
}

// renderCustom renders text with top-level code blocks drawn apart: each
// through a renderer without margins, its lines prefixed with the
// document's margin and the configured indent.
func (m *Markdown) renderCustom(text string) (string, error) {
	var parts []string
	for _, s := range splitFences(text) {
		if !s.code {
			if strings.TrimSpace(s.text) == "" {
				continue
			}
			r, err := m.renderer()
			if err != nil {
				return "", err
			}
			out, err := r.Render(s.text)
			if err != nil {
				return "", err
			}
			if t := trimBlank(out); t != "" {
				parts = append(parts, t)
			}
			continue
		}
		if m.code == nil {
			zero := uint(0)
			r, err := glamour.NewTermRenderer(m.options(max(1, m.width-2-len(m.codeIndent)), func(c *ansi.StyleConfig) {
				c.Document.Margin, c.Document.BlockPrefix, c.Document.BlockSuffix = &zero, "", ""
				c.CodeBlock.Margin, c.CodeBlock.Indent = &zero, &zero
			})...)
			if err != nil {
				return "", err
			}
			m.code = r
		}
		out, err := m.code.Render(s.text)
		if err != nil {
			return "", err
		}
		lines := strings.Split(trimBlank(out), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight(docMargin+m.codeIndent+l, " ")
		}
		parts = append(parts, strings.Join(lines, "\n"))
	}
	return strings.Join(parts, "\n\n"), nil
}
