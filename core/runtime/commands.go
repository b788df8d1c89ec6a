package runtime

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/resources"
)

// Command is one thing a person can run with "/": an extension command, a
// prompt template or a skill, as RPC get_commands lists them.
type Command struct {
	Name         string `json:"name"`
	Description  string `json:"description,omitempty"`
	ArgumentHint string `json:"argumentHint,omitempty"`
	// Source is "extension", "prompt" (a template) or "skill".
	Source string `json:"source"`
	// SourceInfo says where the command came from, in the established
	// harness's shape (RPC get_commands clients read it).
	SourceInfo *SourceInfo `json:"sourceInfo,omitempty"`
	// Path is the template or skill file; Extension the extension's name.
	Path      string `json:"-"`
	Extension string `json:"-"`
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
			cmd := Command{Name: c.Name, Description: c.Info.Description, ArgumentHint: c.Info.ArgumentHint, Source: "extension", Extension: c.Handler.Name(), Completions: c.Info.Completions}
			if d, ok := c.Handler.(interface{ Dir() string }); ok && rt.runner.Loaded != nil {
				cmd.SourceInfo = sourceInfo(rt.runner.Loaded, d.Dir(), "")
			} else {
				cmd.SourceInfo = &SourceInfo{Path: "<extension:" + c.Handler.Name() + ">", Source: "extension", Scope: "temporary", Origin: "top-level"}
			}
			out = append(out, cmd)
		}
	}
	if l := rt.runner.Loaded; l != nil {
		for _, t := range l.Templates {
			out = append(out, Command{Name: t.Name, Description: t.Description, ArgumentHint: t.ArgumentHint, Source: "prompt", Path: t.FilePath,
				SourceInfo: sourceInfo(l, t.FilePath, t.Source)})
		}
		for _, s := range l.Skills {
			if l.Values != nil && !l.Values.Bool("enableSkillCommands") {
				break
			}
			out = append(out, Command{Name: "skill:" + s.Name, Description: s.Description, Source: "skill", Path: s.FilePath,
				SourceInfo: sourceInfo(l, s.FilePath, s.Source)})
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

// SourceInfo is where a resource came from, as the established harness
// describes it: Source is how it was found ("auto" for the conventional
// directories, "local" for a settings entry, "cli" for a flag), Scope
// "user", "project" or "temporary", Origin "top-level" (pi loads no
// package resources into these lists), BaseDir the directory relative
// paths of its kind start from.
type SourceInfo struct {
	Path    string `json:"path"`
	Source  string `json:"source"`
	Scope   string `json:"scope"`
	Origin  string `json:"origin"`
	BaseDir string `json:"baseDir,omitempty"`
}

// sourceInfo maps a template's or skill's source (resources.Source*) onto
// the established harness's description. A settings entry belongs to the
// project when it lies in the project's .pi directory, else to the user.
func sourceInfo(l *resources.Loaded, path, source string) *SourceInfo {
	in := func(dir string) bool {
		rel, err := filepath.Rel(dir, path)
		return dir != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
	}
	user := &SourceInfo{Path: path, Source: "auto", Scope: "user", Origin: "top-level", BaseDir: l.AgentDir}
	project := &SourceInfo{Path: path, Source: "auto", Scope: "project", Origin: "top-level", BaseDir: l.ProjectDir}
	if source == "" { // an extension: where its directory lies
		switch {
		case in(l.ProjectDir):
			return project
		case in(l.AgentDir):
			return user
		}
	}
	switch source {
	case resources.SourceProject, resources.SourceProjectAgents:
		return project
	case resources.SourceUser, resources.SourceUserAgents:
		return user
	case resources.SourceSettings:
		info := user
		if in(l.ProjectDir) {
			info = project
		}
		info.Source = "local"
		return info
	}
	return &SourceInfo{Path: path, Source: "cli", Scope: "temporary", Origin: "top-level"}
}
