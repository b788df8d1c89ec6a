package ui

import (
	"encoding/json"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/piwasm/pi/core/settings"
	"github.com/piwasm/pi/ui/render"
)

// Display is the layout of the session: settings.json's terminal and
// display keys, already checked and clamped by core/settings (which
// reports a value out of range with its key and file).
type Display struct {
	// EditorPaddingX is the editor's padding on each side, 0 to 3 columns
	// (editorPaddingX), at most a third of a narrow window.
	EditorPaddingX int
	// OutputPad is the transcript's padding, 0 or 1 (outputPad): 1 is
	// pi's usual layout, 0 draws replies, notices and other blocks without
	// a marker one column further left and one column wider.
	OutputPad int
	// AutocompleteMaxVisible is how many completions show at once, 3 to
	// 20 (autocompleteMaxVisible).
	AutocompleteMaxVisible int
	// CodeBlockIndent starts every line of a code block
	// (markdown.codeBlockIndent).
	CodeBlockIndent string
	// Mermaid is markdown.mermaid; pi draws a diagram's source as a code
	// block whatever it says (see docs/configuration.md).
	Mermaid string
	// Scrollbar is fullscreenScrollbar: "auto" (while scrolling), "always"
	// or "hidden".
	Scrollbar string
	// WheelLines is fullscreenWheelScrollLines: lines per wheel step, 0
	// for "auto" (faster spins move further, up to 6 lines).
	WheelLines int
	// ExitOutput is fullscreenExitOutput: "transcript" prints the
	// transcript when full-screen mode ends, "resume-hint" only how to
	// resume the session.
	ExitOutput string
}

// DefaultDisplay is the layout when no settings file says otherwise.
func DefaultDisplay() Display {
	return Display{OutputPad: 1, AutocompleteMaxVisible: 5, CodeBlockIndent: render.DefaultCodeBlockIndent, Mermaid: "streaming", Scrollbar: "auto", ExitOutput: "transcript"}
}

// DisplayFrom reads the layout from the session's settings (nil: the
// defaults).
func DisplayFrom(v *settings.Settings) Display {
	d := DefaultDisplay()
	if v == nil {
		return d
	}
	if n, ok := v.Int("editorPaddingX"); ok {
		d.EditorPaddingX = int(n)
	}
	if n, ok := v.Int("outputPad"); ok {
		d.OutputPad = int(n)
	}
	if n, ok := v.Int("autocompleteMaxVisible"); ok {
		d.AutocompleteMaxVisible = int(n)
	}
	if v.IsSet("markdown.codeBlockIndent") {
		d.CodeBlockIndent = v.String("markdown.codeBlockIndent")
	}
	if s := v.String("markdown.mermaid"); s != "" {
		d.Mermaid = s
	}
	if s := v.String("fullscreenScrollbar"); s != "" {
		d.Scrollbar = s
	}
	if n, ok := v.Int("fullscreenWheelScrollLines"); ok {
		d.WheelLines = int(n)
	}
	if s := v.String("fullscreenExitOutput"); s != "" {
		d.ExitOutput = s
	}
	return d
}

// newMarkdown is a markdown renderer for width with the session's code
// block indent.
func (m *Model) newMarkdown(width int) *render.Markdown {
	return m.st.NewMarkdown(width).WithCodeBlockIndent(m.disp.CodeBlockIndent)
}

// padBlock draws a transcript block with outputPad: pi's renderers leave
// one column of padding at the left, which outputPad 0 gives back (the
// block is drawn one column wider and each line's first blank column
// dropped).
func (m *Model) padBlock(draw func(int, bool) string) func(int, bool) string {
	if m.disp.OutputPad != 0 {
		return draw
	}
	return func(w int, x bool) string { return unpad(draw(w+1, x)) }
}

// live is text of the live area (the reply streaming) drawn with
// outputPad, as it will be once it is a block of the transcript.
func (m *Model) live(s string) string {
	if m.disp.OutputPad != 0 {
		return s
	}
	return unpad(s)
}

// unpad drops the first column of a drawing whose lines all start blank.
// A drawing with a marker in its first column (› of a message sent, ✓ of
// a tool call) keeps its layout: its marker already sits at the edge, and
// moving only its other lines would misalign them.
func unpad(s string) string {
	lines := strings.Split(s, "\n")
	for _, l := range lines {
		if p := ansi.Strip(l); p != "" && !strings.HasPrefix(p, " ") {
			return s
		}
	}
	for i, l := range lines {
		if ansi.Strip(l) != "" {
			lines[i] = ansi.TruncateLeft(l, 1, "")
		}
	}
	return strings.Join(lines, "\n")
}

// editorView is the editor with editorPaddingX columns on each side.
func (m *Model) editorView() string {
	v := m.editor.View()
	pad := m.editorPad()
	if pad == 0 {
		return v
	}
	return indentLines(v, strings.Repeat(" ", pad))
}

// editorPad is editorPaddingX limited, as the established harness limits
// it, to leave a narrow window's editor at least one column.
func (m *Model) editorPad() int {
	return min(m.disp.EditorPaddingX, max(0, (m.width-1)/2))
}

// sizeEditor fits the editor into the width left by its padding.
func (m *Model) sizeEditor() {
	m.editor.SetWidth(max(1, m.width-2*m.editorPad()))
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// setDisplay applies a layout key /settings changed (value as JSON text)
// and says when it takes effect; ok is false for other keys.
func (m *Model) setDisplay(name, value string) (note string, ok bool) {
	var v any
	_ = json.Unmarshal([]byte(value), &v)
	str, _ := v.(string)
	switch name {
	case "fullscreenScrollbar":
		m.disp.Scrollbar = str
	case "fullscreenExitOutput":
		m.disp.ExitOutput = str
	case "markdown.mermaid":
		m.disp.Mermaid = str
		return "; pi draws a diagram's source in every mode", true
	case "quietStartup":
		return "; the next start shows it", true
	case "tuiMode":
		return "; the next start draws in that mode", true
	default:
		return "", false
	}
	if !m.host.FullScreen {
		return "; full-screen mode uses it", true
	}
	return "", true
}
