//go:build !noui

package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/theme"
)

// namedTheme is the light built-in theme under another name.
func namedTheme(t *testing.T, name string) string {
	t.Helper()
	var b strings.Builder
	l, _ := theme.Builtin("light")
	b.WriteString(`{"name": "` + name + `", "colors": {`)
	for i, r := range theme.Roles() {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + r + `": "` + l.Color(r).Spec() + `"`)
	}
	b.WriteString("}}")
	return b.String()
}

// TestThemeSources: the themes setting's entries relative to the file
// that names them, the trusted project's .pi/themes, the agent dir's
// themes/, --theme relative to the working directory; --no-themes keeps
// only --theme's; an untrusted project's themes do not load.
func TestThemeSources(t *testing.T) {
	home := t.TempDir()
	agent := filepath.Join(home, "agent")
	proj := t.TempDir()
	writeFiles(t, agent, map[string]string{
		"settings.json":           `{"themes": ["extra", "one.json"]}`,
		"extra/from-setting.json": namedTheme(t, "from-setting"),
		"one.json":                namedTheme(t, "one-file"),
		"themes/agent.json":       namedTheme(t, "from-agent"),
	})
	writeFiles(t, proj, map[string]string{
		".pi/themes/project.json": namedTheme(t, "from-project"),
		"flag/mine.json":          namedTheme(t, "from-flag"),
	})
	a := &app{home: home}
	load := func(approve bool, f themeFlags) string {
		t.Helper()
		l, err := resources.Load(resources.Config{Cwd: proj, AgentDir: agent, Home: home, Approve: approve, NoApprove: !approve})
		if err != nil {
			t.Fatal(err)
		}
		set, ds := a.loadThemes(l, &f)
		if len(ds) > 0 {
			t.Errorf("diagnostics: %v", ds)
		}
		return strings.Join(set.Names(), ",")
	}
	flags := themeFlags{paths: []string{"flag/mine.json"}}
	if got, want := load(true, flags), "system,dark,from-agent,from-flag,from-project,from-setting,light,one-file"; got != want {
		t.Errorf("trusted: %s, want %s", got, want)
	}
	if got, want := load(false, flags), "system,dark,from-agent,from-flag,from-setting,light,one-file"; got != want {
		t.Errorf("untrusted: %s, want %s", got, want)
	}
	flags.noThemes = true
	if got, want := load(true, flags), "system,dark,from-flag,light"; got != want {
		t.Errorf("--no-themes: %s, want %s", got, want)
	}
}
