package runtime

import (
	"context"

	"github.com/piwasm/pi/abi"
)

// Command is one thing a person can run with "/": an extension command, a
// prompt template or a skill, as RPC get_commands lists them.
type Command struct {
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argumentHint,omitempty"`
	// Source is "extension", "prompt" (a template) or "skill".
	Source string `json:"source"`
	// Path is the template or skill file; Extension the extension's name.
	Path      string `json:"path,omitempty"`
	Extension string `json:"extension,omitempty"`
	// Completions: the extension completes the argument (CompleteArgs).
	// Not part of RPC's get_commands, whose shape is the established
	// harness's.
	Completions bool `json:"-"`
}

// Commands lists the extension commands (a name several extensions offer
// is already name:1, name:2 in load order), then templates, then skills
// as skill:name.
func (rt *Runtime) Commands() []Command {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var out []Command
	if d := rt.runner.Dispatcher; d != nil {
		for _, c := range d.Commands() {
			out = append(out, Command{Name: c.Name, Description: c.Info.Description, ArgumentHint: c.Info.ArgumentHint, Source: "extension", Extension: c.Handler.Name(), Completions: c.Info.Completions})
		}
	}
	if l := rt.runner.Loaded; l != nil {
		for _, t := range l.Templates {
			out = append(out, Command{Name: t.Name, Description: t.Description, ArgumentHint: t.ArgumentHint, Source: "prompt", Path: t.FilePath})
		}
		for _, s := range l.Skills {
			if l.Values != nil && !l.Values.Bool("enableSkillCommands") {
				break
			}
			out = append(out, Command{Name: "skill:" + s.Name, Description: s.Description, Source: "skill", Path: s.FilePath})
		}
	}
	return out
}

// CompleteArgs asks the extension behind command name for completions of
// the argument typed so far (prefix). It returns within
// hooks.CompletionTimeout, with nothing when the extension fails.
func (rt *Runtime) CompleteArgs(ctx context.Context, name, prefix string) []abi.CompletionItem {
	rt.mu.Lock()
	d := rt.runner.Dispatcher
	rt.mu.Unlock()
	if d == nil {
		return nil
	}
	return d.CompleteCommand(ctx, name, prefix)
}
