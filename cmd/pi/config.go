package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/settings"
	"github.com/spf13/pflag"
)

// pi config: the established harness's `pi config` turns discovered
// resources on and off by writing "+path" / "-path" entries into the
// skills, prompts (and there, extensions) lists of the settings file of
// the scope the resource belongs to. pi does the same for skills and
// prompt templates, as commands rather than a full-screen picker. pi's
// extensions are packages with a grant; they are turned on and off by
// installing and removing them (pi install, pi remove), so config only
// lists them.

const configUsage = `pi config [--json] [--cwd DIR]                 list skills, prompt templates and extensions, on or off
       pi config disable|enable NAME|PATH... [--cwd DIR]   turn skills or prompt templates off or on`

// configItem is one resource in pi config's listing.
type configItem struct {
	Kind    string `json:"kind"` // "skill", "prompt" or "extension"
	Name    string `json:"name"`
	Path    string `json:"path"`
	Enabled bool   `json:"enabled"`
	// Scope is "user" (the agent dir's settings.json) or "project" (the
	// project's .pi/settings.json): the file a change is written to. It is
	// empty for a resource neither file's filters reach.
	Scope string `json:"scope,omitempty"`
}

func (a *app) cmdConfig(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("pi config", pflag.ContinueOnError)
	fs.SetOutput(a.stderr)
	var c common
	fs.StringVar(&c.cwd, "cwd", "", "project directory (default: the current directory)")
	fs.BoolVar(&c.json, "json", false, "print the listing as JSON")
	if err := fs.Parse(args); err != nil {
		return a.helpOr(err, configUsage, fs)
	}
	rest := fs.Args()
	l, err := a.load(&c)
	if err != nil {
		return err
	}
	items := configItems(l)
	if len(rest) == 0 {
		if c.json {
			return writeJSON(a.stdout, items)
		}
		return printConfig(a, l, items)
	}
	on := false
	switch rest[0] {
	case "enable":
		on = true
	case "disable":
	default:
		return usagef("pi config: unknown action %q\nusage: %s", rest[0], configUsage)
	}
	if len(rest) < 2 {
		return usagef("pi config %s: name a skill or prompt template\nusage: %s", rest[0], configUsage)
	}
	for _, want := range rest[1:] {
		it, err := findConfigItem(items, want, a.wd)
		if err != nil {
			return err
		}
		if err := setEnabled(l, it, on); err != nil {
			return err
		}
		state := "off"
		if on {
			state = "on"
		}
		fmt.Fprintf(a.stdout, "%s %s is %s (%s)\n", it.Kind, it.Name, state, configFile(l, it.Scope))
	}
	return nil
}

// configItems lists the skills and templates found (on and off) and the
// extension packages, in that order.
func configItems(l *resources.Loaded) []configItem {
	var out []configItem
	add := func(kind, name, path string, on bool) {
		out = append(out, configItem{Kind: kind, Name: name, Path: path, Enabled: on, Scope: scopeOf(l, path)})
	}
	for _, s := range l.Skills {
		add("skill", s.Name, s.FilePath, true)
	}
	for _, s := range l.DisabledSkills {
		add("skill", s.Name, s.FilePath, false)
	}
	for _, t := range l.Templates {
		add("prompt", t.Name, t.FilePath, true)
	}
	for _, t := range l.DisabledTemplates {
		add("prompt", t.Name, t.FilePath, false)
	}
	for _, d := range l.ExtensionDirs {
		out = append(out, configItem{Kind: "extension", Name: filepath.Base(d), Path: d, Enabled: true})
	}
	if out == nil {
		out = []configItem{}
	}
	return out
}

// scopeOf is the settings file whose filters reach path: the project's
// when it is under the project's .pi, the user's when under the agent dir.
func scopeOf(l *resources.Loaded, path string) string {
	switch {
	case under(path, l.ProjectDir):
		return "project"
	case under(path, l.AgentDir):
		return "user"
	}
	return ""
}

func under(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func configFile(l *resources.Loaded, scope string) string {
	if scope == "project" {
		return filepath.Join(l.ProjectDir, "settings.json")
	}
	return filepath.Join(l.AgentDir, "settings.json")
}

// findConfigItem finds a skill or template by name or path; a name two
// resources share must be given as a path.
func findConfigItem(items []configItem, want, wd string) (configItem, error) {
	abs := want
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(wd, want)
	}
	var found []configItem
	for _, it := range items {
		if it.Kind == "extension" {
			if it.Name == want || it.Path == abs {
				return it, usagef("pi config: %s is an extension; pi turns extensions off by removing them (pi remove %s) and on by installing them (pi install)", want, it.Name)
			}
			continue
		}
		if it.Name == want || it.Path == abs || (it.Kind == "skill" && filepath.Dir(it.Path) == abs) {
			found = append(found, it)
		}
	}
	switch len(found) {
	case 0:
		return configItem{}, usagef("pi config: no skill or prompt template named %q (pi config lists them)", want)
	case 1:
		return found[0], nil
	}
	var paths []string
	for _, it := range found {
		paths = append(paths, it.Path)
	}
	return configItem{}, usagef("pi config: %q names %d resources; give one of their paths:\n  %s", want, len(found), strings.Join(paths, "\n  "))
}

// setEnabled writes "+path" or "-path" for the item into the skills or
// prompts list of its scope's settings file, replacing any entry of that
// list for the same path, as the established harness's pi config does.
func setEnabled(l *resources.Loaded, it configItem, on bool) error {
	if it.Scope == "" {
		return fmt.Errorf("pi config: %s is outside %s and %s, which settings filters reach; take its path out of the settings or flags that add it instead", it.Path, l.AgentDir, l.ProjectDir)
	}
	base := l.AgentDir
	if it.Scope == "project" {
		base = l.ProjectDir
	}
	rel, err := filepath.Rel(base, it.Path)
	if err != nil {
		return fmt.Errorf("pi config: %w", err)
	}
	pattern := filepath.ToSlash(rel)
	key := "skills"
	if it.Kind == "prompt" {
		key = "prompts"
	}
	file := configFile(l, it.Scope)
	current, err := settingsList(file, key)
	if err != nil {
		return err
	}
	updated := []string{}
	for _, p := range current {
		stripped := p
		if len(p) > 0 && strings.ContainsRune("!+-", rune(p[0])) {
			stripped = p[1:]
		}
		if stripped != pattern {
			updated = append(updated, p)
		}
	}
	if on {
		updated = append(updated, "+"+pattern)
	} else {
		updated = append(updated, "-"+pattern)
	}
	value, _ := json.Marshal(updated)
	return settings.SetInFile(file, key, value)
}

// settingsList reads one list of strings from a settings file (none when
// the file or key is missing).
func settingsList(file, key string) ([]string, error) {
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pi config: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("pi config: %s: %v", file, err)
	}
	raw, ok := top[key]
	if !ok {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("pi config: %s: %q is not a list of strings", file, key)
	}
	return list, nil
}

func printConfig(a *app, l *resources.Loaded, items []configItem) error {
	kinds := []struct{ kind, title string }{{"skill", "Skills"}, {"prompt", "Prompt templates"}, {"extension", "Extensions"}}
	for _, k := range kinds {
		fmt.Fprintf(a.stdout, "%s\n", k.title)
		n := 0
		for _, it := range items {
			if it.Kind != k.kind {
				continue
			}
			n++
			mark := "[x]"
			if !it.Enabled {
				mark = "[ ]"
			}
			fmt.Fprintf(a.stdout, "  %s %-24s %s\n", mark, esc(it.Name), esc(it.Path))
		}
		if n == 0 {
			fmt.Fprintln(a.stdout, "  (none)")
		}
	}
	fmt.Fprintf(a.stdout, "\npi config disable NAME / pi config enable NAME writes -path / +path to the skills or prompts list of\n%s (yours) or %s (the project's).\nExtensions go with pi install and pi remove.\n",
		filepath.Join(l.AgentDir, "settings.json"), filepath.Join(l.ProjectDir, "settings.json"))
	return nil
}
