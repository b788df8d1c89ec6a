package main

import (
	"encoding/json"
	"github.com/piwasm/pi/core/tool/builtin"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/settings"
)

// modelSettings is what settings.json says about the model and its
// thinking: defaultProvider and defaultModel (used when no model is named),
// defaultThinkingLevel and modelThinkingLevels (when no level is), and
// thinkingBudgets.
func modelSettings(v *settings.Settings) provider.Selection {
	if v == nil {
		return provider.Selection{}
	}
	s := provider.Selection{
		DefaultProvider: v.String("defaultProvider"),
		DefaultModel:    v.String("defaultModel"),
	}
	if v.IsSet("defaultThinkingLevel") {
		s.DefaultThinking = v.String("defaultThinkingLevel")
	}
	for name, raw := range v.MergedObject("modelThinkingLevels") {
		var level string
		if err := json.Unmarshal(raw, &level); err == nil && level != "" {
			if s.ModelThinking == nil {
				s.ModelThinking = map[string]string{}
			}
			s.ModelThinking[name] = level
		}
	}
	for _, level := range []string{"minimal", "low", "medium", "high"} {
		if n, ok := v.Int("thinkingBudgets." + level); ok && v.IsSet("thinkingBudgets."+level) {
			if s.ThinkingBudgets == nil {
				s.ThinkingBudgets = map[string]int{}
			}
			s.ThinkingBudgets[level] = int(n)
		}
	}
	return s
}

// shellSettings is the shell the bash tool runs (shellPath, with a leading
// "~" expanded; bash on PATH when unset) and the line put before every
// command (shellCommandPrefix).
func (a *app) shellSettings(v *settings.Settings) (builtin.Shell, string) {
	path := v.String("shellPath")
	if path == "~" || strings.HasPrefix(path, "~/") {
		path = filepath.Join(a.home, path[1:])
	}
	return builtin.BashShell{Path: path}, v.String("shellCommandPrefix")
}
