package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/piwasm/pi/core/imagefit"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/session"
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

// sessionsDir is where this run's sessions are kept: --session-dir (flag,
// relative to the shell's directory), else the directory
// PI_CODING_AGENT_SESSION_DIR names (a leading "~" expanded), else the
// settings' sessionDir (relative to the working directory), else the agent
// dir's sessions/<cwd>/ folder. A custom directory holds the sessions of
// every working directory side by side, as the established harness keeps
// them; each file's header says which directory it belongs to.
func (a *app) sessionsDir(l *resources.Loaded, flag string) string {
	expand := func(p string) string {
		if p == "~" || strings.HasPrefix(p, "~/") {
			return filepath.Join(a.home, p[1:])
		}
		if !filepath.IsAbs(p) {
			return filepath.Join(l.Cwd, p)
		}
		return filepath.Clean(p)
	}
	if flag != "" {
		if !filepath.IsAbs(flag) && !strings.HasPrefix(flag, "~") {
			flag = filepath.Join(a.wd, flag)
		}
		return expand(flag)
	}
	if d := a.getenv("PI_CODING_AGENT_SESSION_DIR"); d != "" {
		return expand(d)
	}
	if d := l.Values.String("sessionDir"); d != "" {
		return expand(d)
	}
	return session.Dir(l.AgentDir, l.Cwd)
}

// fitImages scales down the images of the inputs (@files) that are over
// 2000×2000 pixels, unless images.autoResize is false.
func fitImages(inputs []session.Input, v *settings.Settings) ([]session.Input, error) {
	if !v.Bool("images.autoResize") {
		return inputs, nil
	}
	for i := range inputs {
		for j, b := range inputs[i].Images {
			data, err := base64.StdEncoding.DecodeString(b.Data)
			if err != nil {
				continue
			}
			out, mime, _, _, resized, err := imagefit.Fit(data, b.MimeType)
			if err != nil {
				return nil, fmt.Errorf("attached image: %w", err)
			}
			if resized {
				inputs[i].Images[j].Data, inputs[i].Images[j].MimeType = base64.StdEncoding.EncodeToString(out), mime
			}
		}
	}
	return inputs, nil
}
