package render

import "charm.land/lipgloss/v2"

// Styles are the colours of the session. Plain has none, for golden tests
// and terminals without colour.
type Styles struct {
	User, Dim, Accent, Error, Success, Added, Removed, Hunk, Title lipgloss.Style
	// Glamour is the markdown style name ("dark", "light", "notty").
	Glamour string
	// HideThinking folds thinking blocks to one line (ctrl+t,
	// hideThinkingBlock).
	HideThinking bool
}

// Colored is the default palette (ANSI colours, so the terminal's theme
// decides the exact shades).
func Colored() Styles {
	return Styles{
		User:    lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true),
		Dim:     lipgloss.NewStyle().Foreground(lipgloss.Color("8")),
		Accent:  lipgloss.NewStyle().Foreground(lipgloss.Color("5")),
		Error:   lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		Success: lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		Added:   lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
		Removed: lipgloss.NewStyle().Foreground(lipgloss.Color("1")),
		Hunk:    lipgloss.NewStyle().Foreground(lipgloss.Color("4")),
		Title:   lipgloss.NewStyle().Bold(true),
		Glamour: "dark",
	}
}

// Plain has no colours or attributes.
func Plain() Styles {
	s := lipgloss.NewStyle()
	return Styles{User: s, Dim: s, Accent: s, Error: s, Success: s, Added: s, Removed: s, Hunk: s, Title: s, Glamour: "notty"}
}
