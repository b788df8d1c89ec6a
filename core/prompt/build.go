package prompt

import (
	"slices"
	"strings"

	"github.com/piwasm/pi/abi"
)

// Build turns options into an assembly: the built-in sections of the
// established structure, then the extra named sections, sorted by order. An
// invalid extra section name or order is an error naming the section.
//
// The built-in sections are written into one buffer, in prompt order and
// separated by blank lines, and their texts are slices of it: when nothing
// reorders or removes them, Render returns a slice of that buffer instead
// of copying every section again.
func Build(opts Options) (*Assembly, error) {
	selected := opts.SelectedTools()
	catalog := opts.catalog()
	a := &Assembly{
		Sections:         make([]Section, 0, 8+len(opts.Sections)),
		Contexts:         append([]Context(nil), opts.Contexts...),
		Variables:        make([]Variable, 0, len(opts.Variables)),
		SuppressContexts: opts.SuppressContexts,
	}
	w := newArena(estimateSize(&opts))
	custom := opts.CustomPrompt != ""
	if custom {
		src := opts.CustomPromptSource
		if src == "" {
			src = SourceCLI
		}
		w.section("preamble", OrderPreamble, src).WriteString(opts.CustomPrompt)
	} else {
		w.section("preamble", OrderPreamble, SourceBuiltin).WriteString(defaultPreamble)
		writeTools(w.tagged("tools", OrderTools, SourceBuiltin), selected, catalog)
		w.close()
		writeRules(w.tagged("rules", OrderRules, SourceBuiltin), selected, catalog, opts.Guidelines)
		w.close()
		docs := opts.DocsLocation
		if docs == "" {
			docs = defaultDocsLocation
		}
		before, after, _ := strings.Cut(docsIntro, "%s")
		b := w.tagged("docs", OrderDocs, SourceBuiltin)
		b.WriteString(before)
		b.WriteString(docs)
		b.WriteString(after)
		w.close()
	}
	if opts.AppendText != "" {
		src := opts.AppendTextSource
		if src == "" {
			src = SourceCLI
		}
		w.tagged("addendum", OrderAddendum, src).WriteString(opts.AppendText)
		w.close()
	}
	if len(opts.ContextFiles) > 0 {
		writeProjectContext(w.tagged("project_context", OrderProjectContext, SourceBuiltin), opts.ContextFiles)
		w.close()
	}
	if (contains(selected, "read") || contains(selected, "bash")) && anyVisible(opts.Skills) {
		writeSkills(w.tagged("skills", OrderSkills, SourceBuiltin), opts.Skills)
		w.close()
	}
	cwd := w.tagged("cwd", OrderCwd, SourceBuiltin)
	for _, r := range opts.Cwd {
		if r == '\\' {
			r = '/'
		}
		cwd.WriteRune(r)
	}
	w.close()
	a.Sections, a.arena = w.finish(a.Sections)

	extra := 0
	for _, spec := range opts.Sections {
		if err := abi.ValidSectionName(spec.Name); err != nil {
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
			s.Order = float64(extraOrderBase + extra)
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
	// Extra sections are non-empty only. An empty one still replaced any
	// section of its name above, so an empty layer removes a built-in (or
	// an earlier layer's section): that is how remove_section works.
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

func writeTools(b *textBuf, selected []string, catalog []Tool) {
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
}

func writeRules(b *textBuf, selected []string, catalog []Tool, extra []string) {
	bullets := make([]string, 0, 12)
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" || slices.Contains(bullets, s) {
			return
		}
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
	for i, s := range bullets {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("- ")
		b.WriteString(s)
	}
}

func writeProjectContext(b *textBuf, files []ContextFile) {
	b.WriteString(projectContextIntro)
	for _, f := range files {
		b.WriteString("\n\n<project_instructions path=\"")
		xmlEscape(b, f.Path)
		b.WriteString("\">\n")
		writeQuotedContent(b, f.Content)
		b.WriteString("\n</project_instructions>")
	}
}

// writeQuotedContent writes a context file's text so that it cannot end the
// quoting around it: the "<" of anything that reads as a project_ tag
// ("</project_instructions>", "<project_context", any case, white space
// allowed after "<" and around "/") becomes "&lt;", which a model reads as
// the text of a tag rather than a tag. Everything else, other markup
// included, is written as it is: the file is Markdown, not XML.
func writeQuotedContent(b *textBuf, s string) {
	last := 0
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			break
		}
		i += j
		if opensProjectTag(s[i+1:]) {
			b.WriteString(s[last:i])
			b.WriteString("&lt;")
			last = i + 1
		}
	}
	b.WriteString(s[last:])
}

// opensProjectTag reports whether s, the text after a "<", starts with
// [white space] [/ [white space]] project_ (any case).
func opensProjectTag(s string) bool {
	s = strings.TrimLeft(s, " \t\r\n")
	if rest, ok := strings.CutPrefix(s, "/"); ok {
		s = strings.TrimLeft(rest, " \t\r\n")
	}
	const name = "project_"
	return len(s) >= len(name) && strings.EqualFold(s[:len(name)], name)
}

func anyVisible(skills []Skill) bool {
	for _, s := range skills {
		if !s.DisableModelInvocation {
			return true
		}
	}
	return false
}

func writeSkills(b *textBuf, skills []Skill) {
	b.WriteString(skillsIntro)
	b.WriteString("\n\n<available_skills>")
	for _, s := range skills {
		if s.DisableModelInvocation {
			continue
		}
		b.WriteString("\n  <skill>\n    <name>")
		xmlEscape(b, s.Name)
		b.WriteString("</name>\n    <description>")
		xmlEscape(b, s.Description)
		b.WriteString("</description>\n    <location>")
		xmlEscape(b, s.Location)
		b.WriteString("</location>\n  </skill>")
	}
	b.WriteString("\n</available_skills>")
}

// xmlSpecial maps the bytes xmlEscape replaces to their index in
// xmlEntities; a table lookup per byte beats a switch on this hot path.
var xmlSpecial = [256]uint8{'&': 1, '<': 2, '>': 3, '"': 4, '\'': 5}

var xmlEntities = [...]string{"", "&amp;", "&lt;", "&gt;", "&quot;", "&apos;"}

// xmlEscape escapes the five XML specials; '&' is handled in the same pass,
// which is equivalent to escaping it first.
func xmlEscape(b *textBuf, s string) {
	if strings.IndexByte(s, '&') < 0 && strings.IndexByte(s, '<') < 0 && strings.IndexByte(s, '>') < 0 &&
		strings.IndexByte(s, '"') < 0 && strings.IndexByte(s, '\'') < 0 {
		// Vectorised scans; most names, descriptions and paths need no escaping.
		b.WriteString(s)
		return
	}
	last := 0
	for i := 0; i < len(s); i++ {
		k := xmlSpecial[s[i]]
		if k == 0 {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(xmlEntities[k])
		last = i + 1
	}
	b.WriteString(s[last:])
}
