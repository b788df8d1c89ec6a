//go:build !noui

package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/settings"
	"github.com/piwasm/pi/ui"
)

// uiSettings are the keys /settings offers: those pi acts on whose values
// are a choice (true/false, or a fixed list). Policy keys (permissions,
// sandbox) are not among them: they are edited in the file, deliberately.
func uiSettings(vals *settings.Settings, agentDir string) ([]ui.Setting, error) {
	if vals == nil {
		return nil, errors.New("(settings not loaded)")
	}
	global := filepath.Join(agentDir, "settings.json")
	var out []ui.Setting
	for _, k := range vals.Registry().Keys() {
		if k.Status != settings.Applied || strings.HasPrefix(k.Name, "sandbox") || strings.HasPrefix(k.Name, "permissions") {
			continue
		}
		var opts []string
		switch {
		case k.Kind == settings.Bool:
			// A boolean key may take words too (terminal.images "kitty",
			// quietStartup "header"); a value its check refuses is not
			// offered (terminal.images true).
			for _, o := range []string{"true", "false"} {
				if k.Check == nil || k.Check(json.RawMessage(o)) == nil {
					opts = append(opts, o)
				}
			}
			for _, e := range k.Enum {
				b, _ := json.Marshal(e)
				opts = append(opts, string(b))
			}
		case k.Kind == settings.String && len(k.Enum) > 0:
			for _, e := range k.Enum {
				b, _ := json.Marshal(e)
				opts = append(opts, string(b))
			}
		default:
			continue
		}
		s := ui.Setting{Name: k.Name, Value: k.Default, Options: opts, File: global}
		if v, ok := vals.Lookup(k.Name); ok {
			s.Value = compactJSON(v.Raw)
			if k.Scope != settings.GlobalOnly {
				s.File = v.File
			}
		}
		if s.Value == "" {
			s.Value = "(not set)"
		}
		out = append(out, s)
	}
	return out, nil
}

func compactJSON(raw json.RawMessage) string {
	var b strings.Builder
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	out, _ := json.Marshal(v)
	b.Write(out)
	return b.String()
}
