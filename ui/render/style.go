package render

import (
	"charm.land/glamour/v2/ansi"
	"charm.land/lipgloss/v2"
)

// Styles are the colours of the session. Plain has none, for golden tests
// and terminals without colour; Colored is the system theme's; FromTheme
// builds them from any theme.
type Styles struct {
	User, Dim, Accent, Error, Success, Added, Removed, Hunk, Title lipgloss.Style
	// Muted is secondary text (the footer); Warning a caution; Thinking
	// a thinking block's text; Context a diff's unchanged lines;
	// ToolOutput a tool's result.
	Muted, Warning, Thinking, Context, ToolOutput lipgloss.Style
	// UserText is a user message's text on its panel (UserBg); the tool
	// panels are ToolPending, ToolSuccess and ToolError. A panel style
	// without a background draws no panel.
	UserText, UserBg, ToolPending, ToolSuccess, ToolError lipgloss.Style
	// Levels colour the editor's prompt by thinking level ("off",
	// "minimal", … "max"); BashMode colours it for a !command. Empty
	// (nil) in Plain and Colored: the prompt keeps the terminal's colour.
	Levels   map[string]lipgloss.Style
	BashMode lipgloss.Style
	// Glamour is the markdown style name ("dark", "light", "notty"),
	// used when Markdown is nil.
	Glamour string
	// Markdown is the glamour style built from a theme (its md* and
	// syntax* roles); CodeTheme names the chroma style registered for
	// its code blocks.
	Markdown *ansi.StyleConfig
	// ThemeName is the theme the styles come from ("" for Plain).
	ThemeName string
	// HideThinking folds thinking blocks to one line (ctrl+t,
	// hideThinkingBlock).
	HideThinking bool
}

// Colored is the system theme: ANSI colours, so the terminal's theme
// decides the exact shades.
func Colored() Styles {
	return Styles{
		User:       lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true),
		Dim:        lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
		Muted:      lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
		Thinking:   lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
		ToolOutput: lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
		Accent:     lipgloss.NewStyle().Foreground(lipgloss.Color("5")),
		Error:      lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		Warning:    lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
		Success:    lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		Added:      lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		Removed:    lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		Hunk:       lipgloss.NewStyle().Foreground(lipgloss.Color("4")),
		Title:      lipgloss.NewStyle().Bold(true),
		Glamour:    "dark",
		ThemeName:  "system",
	}
}

// Plain has no colours or attributes.
func Plain() Styles {
	s := lipgloss.NewStyle()
	return Styles{User: s, Dim: s, Accent: s, Error: s, Success: s, Added: s, Removed: s, Hunk: s, Title: s,
		Muted: s, Warning: s, Thinking: s, Context: s, ToolOutput: s,
		UserText: s, UserBg: s, ToolPending: s, ToolSuccess: s, ToolError: s, Glamour: "notty"}
}

// NewMarkdown returns a markdown renderer in these styles.
func (s Styles) NewMarkdown(width int) *Markdown {
	m := NewMarkdown(width, s.Glamour)
	m.config = s.Markdown
	return m
}

// hasBackground reports whether a panel style sets a background.
func hasBackground(s lipgloss.Style) bool {
	_, none := s.GetBackground().(lipgloss.NoColor)
	return !none && s.GetBackground() != nil
}

// Panels reports whether messages and tool calls are drawn on a
// background filling the width.
func (s Styles) Panels() bool {
	return hasBackground(s.UserBg) || hasBackground(s.ToolPending) || hasBackground(s.ToolSuccess) || hasBackground(s.ToolError)
}
