package session

import (
	"sort"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/resources"
)

// OptionsFrom builds the base prompt options from loaded resources: context
// files, custom and appended prompt, skills, settings sections and
// variables, then the command line's own sections. tools nil selects the
// default tools.
func OptionsFrom(l *resources.Loaded, tools []string, cli []prompt.SectionSpec) prompt.Options {
	o := prompt.Options{
		CustomPrompt:       l.CustomPrompt,
		CustomPromptSource: sourceOf(l.CustomPromptSource),
		AppendText:         l.AppendPrompt,
		Tools:              tools,
		Cwd:                l.Cwd,
		SuppressContexts:   l.Settings.SuppressContexts,
	}
	if len(l.AppendSources) > 0 {
		o.AppendTextSource = sourceOf(l.AppendSources[len(l.AppendSources)-1])
	}
	for _, f := range l.ContextFiles {
		o.ContextFiles = append(o.ContextFiles, prompt.ContextFile{Path: f.Path, Content: f.Content})
	}
	for _, s := range l.Skills {
		o.Skills = append(o.Skills, prompt.Skill{Name: s.Name, Description: s.Description, Location: s.FilePath, DisableModelInvocation: s.DisableModelInvocation})
	}
	for _, s := range l.Settings.Sections {
		o.Sections = append(o.Sections, prompt.SectionSpec{Name: s.Name, Text: s.Text, Order: s.Order, Interpolate: s.Interpolate, Source: s.Source})
	}
	names := make([]string, 0, len(l.Settings.Variables))
	for n := range l.Settings.Variables {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := l.Settings.Variables[n]
		o.Variables = append(o.Variables, prompt.Variable{Name: n, Value: &v})
	}
	o.Sections = append(o.Sections, cli...)
	return o
}

// sourceOf turns a resources source (a file path or "cli") into provenance.
func sourceOf(src string) string {
	switch src {
	case "", "cli":
		return prompt.SourceCLI
	}
	return "file:" + src
}
