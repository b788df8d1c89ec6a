package ui

import (
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/piwasm/pi/core/termtext"
)

// Startup is what the session shows before anything else, as the
// established harness shows it: a header (pi's version and its main keys),
// the model scope and what was loaded (context files, skills, prompt
// templates, extensions, MCP servers). quietStartup and --verbose decide
// how much of it.
type Startup struct {
	Version string
	// Quiet is quietStartup: "" (false: everything), "true" (nothing) or
	// "header" (the header, without the scope and the listing).
	Quiet string
	// Verbose (--verbose) shows everything whatever Quiet says, the
	// header with every key and the listing with full paths.
	Verbose bool
	// Scope are the models ctrl+p cycles through (--models,
	// enabledModels), when limited.
	Scope []string
	// Sections are the listing's parts in order; empty ones are left out.
	Sections []StartupSection
}

// StartupSection is one part of the listing of what was loaded.
type StartupSection struct {
	Name string
	// Short are the names shown on one line (sorted unless Ordered), Long
	// the lines --verbose shows (paths), one each.
	Short, Long []string
	Ordered     bool
}

func (s *Startup) header() bool  { return s.Verbose || s.Quiet != "true" }
func (s *Startup) details() bool { return s.Verbose || s.Quiet == "" }

// addStartup puts the start-up header and listing into the transcript.
func (m *Model) addStartup(s *Startup) {
	if s == nil {
		return
	}
	if s.details() && len(s.Scope) > 0 {
		scope := "Model scope: " + strings.Join(s.Scope, ", ") + " (ctrl+p cycles)"
		m.addBlock(func(w int, _ bool) string { return m.st.Dim.Render(truncateTo(termtext.Escape(scope), w)) })
	}
	if s.header() {
		version := "pi " + s.Version
		verbose := s.Verbose
		m.addBlock(func(w int, _ bool) string {
			// The keys in force (keybindings.json may move them).
			keys := "  " + m.firstKey("app.interrupt") + " aborts · " + m.firstKey("app.clear") + " twice quits · / commands · ! bash · @ files · /hotkeys keys"
			if verbose {
				keys = indentLines(m.hotkeys(), "  ")
			}
			return "  " + m.st.Title.Render(version) + "\n" + m.st.Dim.Render(ansi.Wrap(keys, max(w, 20), " "))
		})
	}
	if !s.details() {
		return
	}
	var parts []string
	for _, sec := range s.Sections {
		if len(sec.Short) == 0 && len(sec.Long) == 0 {
			continue
		}
		var body string
		if s.Verbose && len(sec.Long) > 0 {
			body = "  " + strings.Join(escaped(sec.Long), "\n  ")
		} else {
			names := escaped(sec.Short)
			if !sec.Ordered {
				sort.Strings(names)
			}
			body = "  " + strings.Join(names, ", ")
		}
		parts = append(parts, m.st.Accent.Render("["+sec.Name+"]")+"\n"+m.st.Dim.Render(body))
	}
	if len(parts) > 0 {
		listing := strings.Join(parts, "\n\n")
		m.addBlock(func(w int, _ bool) string { return ansi.Wrap(listing, max(w, 20), " ") })
	}
}

func escaped(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = termtext.Escape(s)
	}
	return out
}

// firstKey is an action's first key ("none" when it has none).
func (m *Model) firstKey(id string) string {
	k, _, _ := strings.Cut(m.keyNames(id), ", ")
	return k
}
