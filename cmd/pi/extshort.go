//go:build !noui

package main

import (
	"path/filepath"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/ui"
)

// extShortcuts are the keys the loaded extensions bind, for the
// interactive session: each names the command by the name the dispatcher
// registered (name:N when several extensions offer it).
func extShortcuts(env *extEnv) []ui.Shortcut {
	if env == nil || env.dispatcher == nil {
		return nil
	}
	var out []ui.Shortcut
	for _, x := range env.exts {
		m := x.Manifest()
		for _, s := range m.Shortcuts {
			k, err := abi.ParseKey(s.Key)
			if err != nil {
				continue // the manifest was checked at load
			}
			name := s.Command
			for _, c := range env.dispatcher.Commands() {
				if c.Handler.Name() == m.Name && c.Info.Name == s.Command {
					name = c.Name
				}
			}
			out = append(out, ui.Shortcut{Key: k, Description: s.Description, Extension: m.Name,
				Manifest: filepath.Join(x.Dir(), abi.ManifestFile), Command: name, Args: s.Args})
		}
	}
	return out
}
