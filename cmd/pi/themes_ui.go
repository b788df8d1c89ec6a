//go:build !noui

package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/theme"
	"github.com/piwasm/pi/ui"
)

// themeHost gives the session its themes: loaded now, loaded again by
// reload (whose diagnostics it returns).
type themeHost struct {
	a     *app
	flags *themeFlags
	set   *theme.Set
}

func (t *themeHost) load(l *resources.Loaded) []diag.Diagnostic {
	set, ds := t.a.loadThemes(l, t.flags)
	t.set = set
	return ds
}

// setting is the theme asked for: --use-theme, else the theme setting.
func (t *themeHost) setting(l *resources.Loaded) string {
	if t.flags.use != "" {
		return t.flags.use
	}
	if l.Values == nil {
		return ""
	}
	return l.Values.String("theme")
}

// withTheme adds the theme to /settings' list, offering every loaded
// theme and the light/dark pair of the built-in ones.
func (t *themeHost) withTheme(list []ui.Setting, l *resources.Loaded) []ui.Setting {
	s := ui.Setting{Name: "theme", Value: `"` + theme.System + `"`, File: filepath.Join(l.AgentDir, "settings.json")}
	if v, ok := l.Values.Lookup("theme"); ok {
		s.Value, s.File = compactJSON(v.Raw), v.File
	}
	names := t.set.Names()
	names = append(names, "light/dark")
	for _, n := range names {
		b, _ := json.Marshal(n)
		s.Options = append(s.Options, string(b))
	}
	// In its place among the keys, which uiSettings lists by name.
	at := sort.Search(len(list), func(i int) bool { return list[i].Name > s.Name })
	return slices.Insert(list, at, s)
}
