package prompt

import (
	"fmt"
	"strings"
)

// Build turns options into an assembly: the built-in sections of the
// established structure, then the extra named sections, sorted by order. An
// invalid extra section name or order is an error naming the section.
func Build(opts Options) (*Assembly, error) {
	selected := opts.SelectedTools()
	catalog := opts.catalog()
	a := &Assembly{
		Sections:         make([]Section, 0, 8+len(opts.Sections)),
		Contexts:         append([]Context(nil), opts.Contexts...),
		Variables:        make([]Variable, 0, len(opts.Variables)),
		SuppressContexts: opts.SuppressContexts,
	}
	builtin := func(name string, order float64, text string) {
		a.Sections = append(a.Sections, Section{Name: name, Order: order, Text: text, Source: SourceBuiltin})
	}

	if opts.CustomPrompt != "" {
		src := opts.CustomPromptSource
		if src == "" {
			src = SourceCLI
		}
		a.Sections = append(a.Sections, Section{Name: "preamble", Order: OrderPreamble, Text: opts.CustomPrompt, Source: src})
	} else {
		builtin("preamble", OrderPreamble, defaultPreamble)
		builtin("tools", OrderTools, wrap("tools", toolsText(selected, catalog)))
		builtin("rules", OrderRules, wrap("rules", rulesText(selected, catalog, opts.Guidelines)))
		docs := opts.DocsLocation
		if docs == "" {
			docs = DefaultDocsLocation
		}
		builtin("docs", OrderDocs, wrap("docs", fmt.Sprintf(docsIntro, docs)))
	}
	if opts.AppendText != "" {
		src := opts.AppendTextSource
		if src == "" {
			src = SourceCLI
		}
		a.Sections = append(a.Sections, Section{Name: "addendum", Order: OrderAddendum, Text: wrap("addendum", opts.AppendText), Source: src})
	}
	if len(opts.ContextFiles) > 0 {
		builtin("project_context", OrderProjectContext, projectContextText(opts.ContextFiles))
	}
	if (contains(selected, "read") || contains(selected, "bash")) && anyVisible(opts.Skills) {
		builtin("skills", OrderSkills, skillsText(opts.Skills))
	}
	builtin("cwd", OrderCwd, wrap("cwd", strings.ReplaceAll(opts.Cwd, `\`, "/")))

	extra := 0
	for _, spec := range opts.Sections {
		if err := ValidSectionName(spec.Name); err != nil {
			return nil, err
		}
		s := Section{Name: spec.Name, Text: spec.Text, Interpolate: spec.Interpolate, Complete: spec.Complete, Source: spec.Source}
		if s.Source == "" {
			s.Source = SourceCLI
		}
		if spec.Order != nil {
			s.Order = *spec.Order
		}
		_, exists := a.Section(spec.Name)
		if !exists && spec.Order == nil {
			s.Order = float64(ExtraOrderBase + extra)
		}
		if !exists {
			extra++
		}
		// A built-in or earlier section of the same name is replaced in
		// place unless this layer picks its own order.
		if err := a.SetSection(s, spec.Order == nil); err != nil {
			return nil, err
		}
	}
	// Extra sections are non-empty only: an empty one removes nothing but
	// contributes nothing either.
	kept := a.Sections[:0]
	for _, s := range a.Sections {
		if s.Text != "" || s.Source == SourceBuiltin {
			kept = append(kept, s)
		}
	}
	a.Sections = kept

	for _, v := range opts.Variables {
		if err := a.SetVariable(v); err != nil {
			return nil, err
		}
	}
	for _, name := range selected {
		if t, ok := findTool(catalog, name); ok {
			a.Tools = append(a.Tools, ToolDecl{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
		}
	}
	a.Sort()
	return a, nil
}

func wrap(tag, body string) string {
	var b strings.Builder
	b.Grow(len(tag)*2 + len(body) + 6)
	b.WriteByte('<')
	b.WriteString(tag)
	b.WriteString(">\n")
	b.WriteString(body)
	b.WriteString("\n</")
	b.WriteString(tag)
	b.WriteByte('>')
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func findTool(catalog []Tool, name string) (Tool, bool) {
	for _, t := range catalog {
		if t.Name == name {
			return t, true
		}
	}
	return Tool{}, false
}

func toolsText(selected []string, catalog []Tool) string {
	var b strings.Builder
	n := 0
	for _, name := range selected {
		t, ok := findTool(catalog, name)
		if !ok || t.Snippet == "" {
			continue
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- ")
		b.WriteString(t.Name)
		b.WriteString(": ")
		b.WriteString(t.Snippet)
		n++
	}
	if n == 0 {
		b.WriteString("(none)")
	}
	b.WriteString("\n\n")
	b.WriteString(toolsTrailer)
	return b.String()
}

func rulesText(selected []string, catalog []Tool, extra []string) string {
	bullets := make([]string, 0, 8)
	seen := make(map[string]bool, 8)
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || seen[s] {
			return
		}
		seen[s] = true
		bullets = append(bullets, s)
	}
	hasShell := contains(selected, "bash") || contains(selected, "powershell")
	hasSearch := contains(selected, "grep") || contains(selected, "find") || contains(selected, "ls")
	if hasShell && !hasSearch {
		add(shellForFilesRule)
	}
	for _, name := range selected {
		if t, ok := findTool(catalog, name); ok {
			for _, g := range t.Guidelines {
				add(g)
			}
		}
	}
	for _, g := range extra {
		add(g)
	}
	add(conciseRule)
	add(pathsRule)
	var b strings.Builder
	for i, s := range bullets {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- ")
		b.WriteString(s)
	}
	return b.String()
}

func projectContextText(files []ContextFile) string {
	var b strings.Builder
	size := len(projectContextIntro) + 40
	for _, f := range files {
		size += len(f.Path) + len(f.Content) + 52
	}
	b.Grow(size)
	b.WriteString("<project_context>\n")
	b.WriteString(projectContextIntro)
	for _, f := range files {
		b.WriteString("\n\n<project_instructions path=\"")
		b.WriteString(f.Path)
		b.WriteString("\">\n")
		b.WriteString(f.Content)
		b.WriteString("\n</project_instructions>")
	}
	b.WriteString("\n</project_context>")
	return b.String()
}

func anyVisible(skills []Skill) bool {
	for _, s := range skills {
		if !s.DisableModelInvocation {
			return true
		}
	}
	return false
}

func skillsText(skills []Skill) string {
	var b strings.Builder
	size := len(skillsIntro) + 60
	for _, s := range skills {
		size += escapedLen(s.Name) + escapedLen(s.Description) + escapedLen(s.Location) + 97
	}
	b.Grow(size)
	b.WriteString("<skills>\n")
	b.WriteString(skillsIntro)
	b.WriteString("\n\n<available_skills>")
	for _, s := range skills {
		if s.DisableModelInvocation {
			continue
		}
		b.WriteString("\n  <skill>\n    <name>")
		xmlEscape(&b, s.Name)
		b.WriteString("</name>\n    <description>")
		xmlEscape(&b, s.Description)
		b.WriteString("</description>\n    <location>")
		xmlEscape(&b, s.Location)
		b.WriteString("</location>\n  </skill>")
	}
	b.WriteString("\n</available_skills>\n</skills>")
	return b.String()
}

// escapedLen is len(s) after xmlEscape, so builders are sized once.
func escapedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '&':
			n += 4
		case '<', '>':
			n += 3
		case '"', '\'':
			n += 5
		}
	}
	return n
}

// xmlEscape escapes the five XML specials; '&' is handled in the same pass,
// which is equivalent to escaping it first.
func xmlEscape(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var rep string
		switch s[i] {
		case '&':
			rep = "&amp;"
		case '<':
			rep = "&lt;"
		case '>':
			rep = "&gt;"
		case '"':
			rep = "&quot;"
		case '\'':
			rep = "&apos;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(rep)
		last = i + 1
	}
	b.WriteString(s[last:])
}
