package ui

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/piwasm/pi/core/theme"
)

// A theme with its own export colours: dark's roles, another name.
func writeCustomTheme(t *testing.T, dir string) *theme.Set {
	t.Helper()
	d, _ := theme.Builtin("dark")
	var b strings.Builder
	b.WriteString(`{"name": "ocean", "export": {"pageBg": "#abcdef", "cardBg": "#123456"}, "colors": {`)
	for i, r := range theme.Roles() {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + r + `": "` + d.Color(r).Spec() + `"`)
	}
	b.WriteString("}}")
	p := filepath.Join(dir, "ocean.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	set, ds := theme.Load(theme.Sources{Flags: []string{p}})
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	return set
}

func TestExportUsesTheTheme(t *testing.T) {
	dir := t.TempDir()
	set := writeCustomTheme(t, t.TempDir())
	setting := "ocean"
	rt := newTestRuntime(t, dir, 1)
	m := fullScreen(t, Host{Runtime: rt, Cwd: dir, Themes: func() *theme.Set { return set }, ThemeSetting: func() string { return setting },
		Reload: func() ([]string, error) { return nil, nil }})
	press(m, "/export themed.html", "enter")
	html, err := os.ReadFile(filepath.Join(dir, "themed.html"))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := theme.Builtin("dark")
	for _, want := range []string{"color-scheme:dark", "body{background:#abcdef;color:#e5e5e7}", ".msg{background:#123456", ".user{background:" + d.Color("userMessageBg").Hex()} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the themed page lacks %q", want)
		}
	}
	// The system theme's colours are the terminal's: the page keeps its
	// own.
	setting = "system"
	press(m, "/reload", "enter")
	press(m, "/export plain.html", "enter")
	html, _ = os.ReadFile(filepath.Join(dir, "plain.html"))
	if strings.Contains(string(html), ":root{color-scheme") || !strings.Contains(string(html), "prefers-color-scheme") {
		t.Errorf("the system theme's page should keep its own colours")
	}
}

func TestThemeSettingAndTerminalBackground(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 0)
	setting := "light/dark"
	var saved []string
	m := fullScreen(t, Host{Runtime: rt, Cwd: dir, Color: true, ThemeSetting: func() string { return setting },
		Settings: func() ([]Setting, error) {
			return []Setting{{Name: "theme", Value: `"light/dark"`, Options: []string{`"system"`, `"dark"`, `"light"`, `"nope"`}, File: "settings.json"}}, nil
		},
		SetSetting: func(name, value string) (string, error) {
			saved = append(saved, name+"="+value)
			return "settings.json", nil
		},
	})
	if m.theme.current.Name != "dark" || m.themeInit() == nil {
		t.Fatalf("light/dark on an unknown background: %s (and the terminal should be asked)", m.theme.current.Name)
	}
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if m.theme.current.Name != "light" || m.st.ThemeName != "light" || m.st.Markdown == nil {
		t.Errorf("a light background: %s / %s", m.theme.current.Name, m.st.ThemeName)
	}
	// /settings: choose "system".
	press(m, "/settings", "enter", "enter", "1")
	if m.theme.current.Name != "system" || len(saved) != 1 || saved[0] != `theme="system"` {
		t.Errorf("after /settings: %s, saved %v", m.theme.current.Name, saved)
	}
	// An unknown name: said with the nearest, system in force.
	press(m, "/settings", "enter", "enter", "4")
	if v := plainView(m); m.theme.current.Name != "system" || !strings.Contains(v, `theme "nope" not found`) {
		t.Errorf("an unknown theme: %s\n%s", m.theme.current.Name, v)
	}
}

func TestEditorPromptFollowsThinkingAndBash(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 0)
	m := fullScreen(t, Host{Runtime: rt, Cwd: dir, Color: true, ThemeSetting: func() string { return "dark" }})
	d, _ := theme.Builtin("dark")
	prompt := func() string { return fmt.Sprint(m.editor.Styles().Focused.Prompt.GetForeground()) }
	m.View()
	level := rt.Route().ThinkingLevel()
	if want := fmt.Sprint(lipgloss.Color(d.Color("thinking" + strings.ToUpper(level[:1]) + level[1:]).Spec())); prompt() != want {
		t.Errorf("thinking %s: prompt %s, want %s", level, prompt(), want)
	}
	m.editor.SetValue("!ls")
	m.View()
	if want := fmt.Sprint(lipgloss.Color(d.Color("bashMode").Spec())); prompt() != want {
		t.Errorf("a !command: prompt %s, want %s", prompt(), want)
	}
}
