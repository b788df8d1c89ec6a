package main

import (
	"encoding/json"
	"path/filepath"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/export"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/theme"
)

// loadThemes finds the interactive session's themes as the established
// harness does: the themes setting's files and directories (relative to
// the settings file that names them), the trusted project's .pi/themes,
// <agent-dir>/themes, then --theme (relative to the working directory);
// --no-themes keeps only --theme's. Only the interactive session calls
// it, and RPC's export_html when asked: pi -p reads no theme.
func (a *app) loadThemes(l *resources.Loaded, f *themeFlags) (*theme.Set, []diag.Diagnostic) {
	var src theme.Sources
	src.NoDiscover = f.noThemes
	for _, v := range l.Values.Layers("themes") {
		var entries []string
		if json.Unmarshal(v.Raw, &entries) != nil {
			continue // the settings model reported the wrong type
		}
		for _, e := range entries {
			src.Settings = append(src.Settings, absPath(resources.ExpandHome(e, a.home), filepath.Dir(v.File)))
		}
	}
	for _, p := range l.Packages {
		src.Settings = append(src.Settings, p.Resources.Themes...)
	}
	if l.Trust.Trusted {
		src.Dirs = append(src.Dirs, filepath.Join(l.ProjectDir, "themes"))
	}
	if l.AgentDir != "" {
		src.Dirs = append(src.Dirs, filepath.Join(l.AgentDir, "themes"))
	}
	for _, p := range f.paths {
		src.Flags = append(src.Flags, absPath(resources.ExpandHome(p, a.home), l.Cwd))
	}
	return theme.Load(src)
}

func absPath(p, base string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}

// exportPalette is the theme setting's colours for an HTML page written
// outside the interactive session (RPC export_html), as the established
// harness colours it: the themes are read when a page is written, not at
// start-up. A LIGHT/DARK pair goes by COLORFGBG (there is no terminal to
// ask); the system theme, whose colours are a terminal's, leaves the page
// its own.
func (a *app) exportPalette(l *resources.Loaded, f *themeFlags) *export.Palette {
	if l == nil || l.Values == nil {
		return nil
	}
	set, _ := a.loadThemes(l, f)
	appearance := theme.EnvAppearance(a.getenv)
	t, _ := set.Pick(l.Values.String("theme"), appearance)
	if t.Name == theme.System {
		return nil
	}
	p := t.Palette(appearance)
	return &p
}
