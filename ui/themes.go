package ui

import (
	"encoding/json"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/piwasm/pi/core/export"
	"github.com/piwasm/pi/core/theme"
	"github.com/piwasm/pi/ui/render"
)

// themeState is the session's theme: the one in force, the terminal's
// appearance as known so far, and a choice made in /settings this
// session (which wins over the setting the host reads until pi restarts).
type themeState struct {
	current    *theme.Theme
	appearance string
	choice     string
	// profile is the terminal's colour profile as Bubble Tea detected it
	// (Unknown until it says).
	profile colorprofile.Profile
	// prompt is what the editor prompt's colour was last set for.
	prompt promptKey
	// plainPrompt is the editor's own prompt style, kept for the themes
	// that do not colour it.
	plainPrompt *lipgloss.Style
}

// downsample reduces the colours of text printed above the session (the
// scrollback in inline mode) to the terminal's profile: Bubble Tea does
// so for what it draws, but writes printed lines as they are, and a
// theme's true colours would reach a 256-colour terminal unchanged.
func (m *Model) downsample(s string) string {
	p := m.theme.profile
	if p == colorprofile.Unknown || p == colorprofile.TrueColor || p <= colorprofile.NoTTY {
		return s
	}
	var b strings.Builder
	w := &colorprofile.Writer{Forward: &b, Profile: p}
	if _, err := w.WriteString(s); err != nil {
		return s
	}
	return b.String()
}

// themeSetting is the theme asked for: /settings' choice this session,
// else the host's (--use-theme, else the theme setting).
func (m *Model) themeSetting() string {
	if m.theme.choice != "" {
		return m.theme.choice
	}
	if m.host.ThemeSetting != nil {
		return m.host.ThemeSetting()
	}
	return ""
}

// pickTheme is the theme setting asks for among the host's themes.
func pickTheme(h Host, setting, appearance string) (*theme.Theme, string) {
	var set *theme.Set
	if h.Themes != nil {
		set = h.Themes()
	}
	if set == nil {
		set, _ = theme.Load(theme.Sources{NoDiscover: true})
	}
	return set.Pick(setting, appearance)
}

// applyTheme picks the theme again (after start-up, /reload, a /settings
// change or the terminal's background colour) and redraws with it. The
// note says when the asked-for theme is not there.
func (m *Model) applyTheme() (note string) {
	if m.theme.appearance == "" {
		m.theme.appearance = "dark"
	}
	t, note := pickTheme(m.host, m.themeSetting(), m.theme.appearance)
	m.theme.current = t
	if !m.host.Color {
		// NO_COLOR: the theme still colours /export's page.
		return note
	}
	hide := m.st.HideThinking
	m.st = render.FromTheme(t)
	m.st.HideThinking = hide
	m.md = m.newMarkdown(m.width)
	for _, b := range m.blocks {
		b.cache = ""
	}
	m.streamDirty = true
	return note
}

// themeInit asks the terminal for its background colour when the theme
// setting follows it (LIGHT/DARK); COLORFGBG or dark stand in until the
// answer comes, and for terminals that do not answer.
func (m *Model) themeInit() tea.Cmd {
	if _, _, pair := theme.Pair(m.themeSetting()); pair && m.host.Color {
		return tea.RequestBackgroundColor
	}
	return nil
}

// backgroundColor takes the terminal's answer: a pair setting then picks
// its light or dark theme.
func (m *Model) backgroundColor(msg tea.BackgroundColorMsg) tea.Cmd {
	appearance := "light"
	if msg.IsDark() {
		appearance = "dark"
	}
	if appearance == m.theme.appearance {
		return nil
	}
	m.theme.appearance = appearance
	if _, _, pair := theme.Pair(m.themeSetting()); !pair {
		return nil
	}
	if note := m.applyTheme(); note != "" {
		m.addNotice(note)
	}
	return m.flush()
}

// chooseTheme applies a theme chosen in /settings (its JSON value).
func (m *Model) chooseTheme(value string) {
	var name string
	if json.Unmarshal([]byte(value), &name) != nil {
		return
	}
	m.theme.choice = name
	if note := m.applyTheme(); note != "" {
		m.addNotice(note)
	}
}

// exportPalette is the theme's colours for /export's page; the system
// theme's are the terminal's, unknown here, so its page keeps its own
// light and dark colours.
func (m *Model) exportPalette() *export.Palette {
	t := m.theme.current
	if t == nil || t.Name == theme.System {
		return nil
	}
	p := t.Palette(m.theme.appearance)
	return &p
}

// styleEditor colours the editor's prompt as the established harness
// colours its editor's border: by the thinking level, or bashMode for a
// !command. Styles are set only when the colour changes.
func (m *Model) styleEditor() {
	if m.theme.plainPrompt == nil {
		p := m.editor.Styles().Focused.Prompt
		m.theme.plainPrompt = &p
	}
	key := promptKey{theme: m.st.ThemeName, themed: m.st.Levels != nil}
	if key.themed {
		key.bash = strings.HasPrefix(m.editor.Value(), "!")
		key.level = m.rt.Route().ThinkingLevel()
	}
	if key == m.theme.prompt {
		return
	}
	m.theme.prompt = key
	want := *m.theme.plainPrompt
	switch {
	case !key.themed:
	case key.bash:
		want = m.st.BashMode
	default:
		if s, ok := m.st.Levels[key.level]; ok {
			want = s
		}
	}
	s := m.editor.Styles()
	s.Focused.Prompt = want
	s.Blurred.Prompt = want
	m.editor.SetStyles(s)
}

// promptKey is what the editor prompt's colour depends on.
type promptKey struct {
	theme, level string
	themed, bash bool
}
