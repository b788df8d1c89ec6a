package tool

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/piwasm/pi/abi"
)

// Registry holds the tools pi can run, in registration order. It is safe
// for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	order []string
	tools map[string]Tool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]Tool{}}
}

// Add registers t. A name abi.ValidToolName refuses (abi.ValidMCPToolName
// for the tools of an MCP server, whose Source starts with SourceMCP), a
// tool without Run, or a name already taken is refused; the duplicate
// error names both sources. The mcp__ names are the MCP client's alone.
func (r *Registry) Add(t Tool) error {
	if strings.HasPrefix(t.Source, SourceMCP) {
		if err := abi.ValidMCPToolName(t.Name, false); err != nil {
			return fmt.Errorf("%w (from %s)", err, sourceOf(t))
		}
	} else if err := abi.ValidToolName(t.Name); err != nil {
		return fmt.Errorf("%w (from %s)", err, sourceOf(t))
	} else if strings.HasPrefix(t.Name, abi.MCPToolPrefix) {
		return fmt.Errorf("tool %q (from %s): names starting with %s are reserved for MCP servers", t.Name, sourceOf(t), abi.MCPToolPrefix)
	}
	if t.Run == nil {
		return fmt.Errorf("tool %q (from %s) has no run function", t.Name, sourceOf(t))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if old, ok := r.tools[t.Name]; ok {
		return fmt.Errorf("tool %q from %s is already registered by %s", t.Name, sourceOf(t), sourceOf(old))
	}
	if t.schema == nil {
		t.schema = &decodedSchema{raw: t.Parameters}
	}
	r.tools[t.Name] = t
	r.order = append(r.order, t.Name)
	return nil
}

func sourceOf(t Tool) string {
	if t.Source == "" {
		return "an unnamed source"
	}
	return t.Source
}

// Get returns the tool registered under name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// Names lists the registered tools in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]string(nil), r.order...)
}

// Selection is the command line's choice of active tools:
// -t/--tools (Tools), -xt/--exclude-tools (Exclude), -nbt (NoBuiltin), -nt (NoTools).
//
// Tools is either an allowlist of names and `*` patterns, which replaces the
// default set and also activates any registered tool it names or matches, or
// a list made only of `+name`/`-name` entries (exact names), which adds to or
// removes from the default set. The two kinds cannot be mixed. Exclude (names
// or patterns) is applied last. NoBuiltin empties the built-in defaults but
// keeps extension tools; NoTools starts from nothing at all, so only what
// Tools names is active.
type Selection struct {
	Tools, Exclude     []string
	NoBuiltin, NoTools bool
}

// Select resolves s against the registry. defaults is the default built-in
// set (prompt.DefaultTools or the settings' defaultTools); extension tools are
// active by default unless NoTools or an allowlist leaves them out. The
// result is in registration order. Names that are not registered are errors
// naming them; a pattern matching nothing is not.
func (r *Registry) Select(s Selection, defaults []string) ([]string, error) {
	names := r.Names()
	known := make(map[string]bool, len(names))
	for _, n := range names {
		known[n] = true
	}

	mods := 0
	for _, e := range s.Tools {
		if isModifier(e) {
			mods++
			if strings.Contains(e, "*") {
				return nil, fmt.Errorf("--tools: +name and -name entries take exact tool names, not patterns: %s", e)
			}
		}
	}
	if mods > 0 && mods < len(s.Tools) {
		return nil, fmt.Errorf("--tools: plain tool names cannot be mixed with +name or -name entries")
	}

	var unknown []string
	check := func(e string) {
		// An MCP tool may be named before its server has connected.
		if strings.Contains(e, "*") || strings.HasPrefix(e, abi.MCPToolPrefix) {
			return
		}
		if !known[e] {
			unknown = append(unknown, e)
		}
	}
	for _, e := range s.Tools {
		if isModifier(e) {
			e = e[1:]
		}
		check(e)
	}
	for _, e := range s.Exclude {
		check(e)
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown tool%s: %s (available: %s)", plural(len(unknown)), strings.Join(unknown, ", "), strings.Join(names, ", "))
	}

	// The default set: the built-in defaults that exist, then every
	// extension tool, which becomes active when registered.
	var base []string
	if !s.NoTools {
		if !s.NoBuiltin {
			for _, d := range defaults {
				if known[d] {
					base = append(base, d)
				}
			}
		}
		r.mu.RLock()
		for _, n := range r.order {
			if r.tools[n].Source != SourceBuiltin {
				base = append(base, n)
			}
		}
		r.mu.RUnlock()
	}

	active := map[string]bool{}
	switch {
	case mods > 0:
		for _, b := range base {
			active[b] = true
		}
		for _, e := range s.Tools {
			active[e[1:]] = e[0] == '+'
		}
	case len(s.Tools) > 0:
		// As in the established harness, an allowlist filters MCP tools
		// only once one of its entries starts with mcp__.
		allow := matcher(s.Tools)
		filtersMCP := false
		for _, e := range s.Tools {
			filtersMCP = filtersMCP || strings.HasPrefix(e, abi.MCPToolPrefix)
		}
		r.mu.RLock()
		for _, n := range names {
			active[n] = allow(n) || !filtersMCP && strings.HasPrefix(r.tools[n].Source, SourceMCP)
		}
		r.mu.RUnlock()
	default:
		for _, b := range base {
			active[b] = true
		}
	}
	exclude := matcher(s.Exclude)
	out := []string{}
	for _, n := range names {
		if active[n] && !exclude(n) {
			out = append(out, n)
		}
	}
	return out, nil
}

func isModifier(e string) bool { return strings.HasPrefix(e, "+") || strings.HasPrefix(e, "-") }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// matcher reports whether a name is one of entries or matches one of its `*` patterns.
func matcher(entries []string) func(string) bool {
	exact := map[string]bool{}
	var pats []*regexp.Regexp
	for _, e := range entries {
		if !strings.Contains(e, "*") {
			exact[e] = true
			continue
		}
		parts := strings.Split(e, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		pats = append(pats, regexp.MustCompile("^"+strings.Join(parts, ".*")+"$"))
	}
	return func(n string) bool {
		if exact[n] {
			return true
		}
		for _, p := range pats {
			if p.MatchString(n) {
				return true
			}
		}
		return false
	}
}

// sortedKeys is used where error messages list names deterministically.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
