package abi

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ManifestFile is the file name of a package's manifest.
const ManifestFile = "extension.yaml"

// Failure policies.
const (
	// FailureSkip: a failing call is reported and the stage keeps its
	// previous value (the default).
	FailureSkip = "skip"
	// FailureAbort: a failing call stops the run with an error naming the
	// extension (for policy extensions).
	FailureAbort = "abort"
)

// Limit defaults and host-side caps. A manifest value of 0 means the
// default; a value above the cap is a manifest error.
const (
	DefaultTimeoutMs = 500
	MaxTimeoutMs     = 5000
	DefaultMemoryMiB = 64
	MaxMemoryMiB     = 512
	DefaultOutputKiB = 1024
	MaxOutputKiB     = 16 * 1024
)

// Manifest is the content of extension.yaml. It is readable before any code
// runs and declares who the extension is and what it needs.
type Manifest struct {
	// Name identifies the extension (^[a-z][a-z0-9-]*$, at most 64 bytes).
	Name string `yaml:"name" json:"name"`
	// Version is the extension's own version string (free-form).
	Version string `yaml:"version,omitempty" json:"version,omitempty"`
	// ABI is the ABI version the module was built against; must equal
	// Version.
	ABI int `yaml:"abi" json:"abi"`
	// Module is the .wasm file name next to the manifest (default
	// "<name>.wasm"). It may not contain a path separator.
	Module string `yaml:"module,omitempty" json:"module,omitempty"`
	// Hooks lists the hooks the module handles (see Hooks). A module must
	// export the matching function of each.
	Hooks []string `yaml:"hooks,omitempty" json:"hooks,omitempty"`
	// Commands lists the slash commands the module offers (requires the
	// pi_command export). When empty and the module handles the command
	// hook, the host asks the pi_commands export at load time.
	Commands []CommandInfo `yaml:"commands,omitempty" json:"commands,omitempty"`
	// Tools declares the tools the module provides (run through the
	// pi_tool export). Everything the prompt needs is here, so declaring
	// them starts no guest.
	Tools []ToolSpec `yaml:"tools,omitempty" json:"tools,omitempty"`
	// Flags are the command-line flags the extension takes (see
	// FlagSpec); read without running the guest.
	Flags []FlagSpec `yaml:"flags,omitempty" json:"flags,omitempty"`
	// Shortcuts bind keys of the interactive session to the extension's
	// commands (see ShortcutSpec).
	Shortcuts []ShortcutSpec `yaml:"shortcuts,omitempty" json:"shortcuts,omitempty"`
	// Capabilities the extension requests. Nothing is available unless
	// requested here and granted by the user.
	Capabilities Capabilities `yaml:"capabilities,omitempty" json:"capabilities,omitempty"`
	// Limits per call (0 = default).
	Limits Limits `yaml:"limits,omitempty" json:"limits,omitempty"`
	// InputPrefixes, when set, limits before_agent_start to runs whose
	// input (leading white space ignored) starts with one of them; for any
	// other input the host skips the call without loading the module. An
	// extension that reacts to a marker (say "?") declares it here so that
	// ordinary runs never pay for it.
	InputPrefixes []string `yaml:"inputPrefixes,omitempty" json:"inputPrefixes,omitempty"`
	// Failure is the failure policy: "skip" (default) or "abort".
	Failure string `yaml:"failure,omitempty" json:"failure,omitempty"`
	// Config is free-form data passed to the guest (fetched as JSON with
	// KeyConfig).
	Config any `yaml:"config,omitempty" json:"config,omitempty"`
}

// Items lists the capabilities one per item, in a fixed order, as short
// phrases for people: "file .git/HEAD", "network api.example.com",
// "env HOME", "clock", "random".
func (c Capabilities) Items() []string {
	var out []string
	for _, f := range c.Files {
		out = append(out, "file "+f)
	}
	for _, h := range c.Network {
		out = append(out, "network "+h)
	}
	for _, e := range c.Env {
		out = append(out, "env "+e)
	}
	if c.Clock {
		out = append(out, "clock")
	}
	if c.Random {
		out = append(out, "random")
	}
	return out
}

// Capabilities are what an extension may ask for.
type Capabilities struct {
	// Files are slash-separated globs relative to the project root
	// (path.Match syntax, plus "**" for any number of directories), read
	// through pi_read_file.
	Files []string `yaml:"files,omitempty" json:"files,omitempty"`
	// Network lists the hosts reachable through Extism HTTP requests, as
	// host patterns (see ValidateHostPattern): a name or *.domain,
	// optionally with :PORT.
	Network []string `yaml:"network,omitempty" json:"network,omitempty"`
	// Env lists environment variable names visible to the guest.
	Env []string `yaml:"env,omitempty" json:"env,omitempty"`
	// Clock requests the real wall and monotonic clocks (otherwise a fixed
	// clock).
	Clock bool `yaml:"clock,omitempty" json:"clock,omitempty"`
	// Random requests a real random source (otherwise a deterministic one).
	Random bool `yaml:"random,omitempty" json:"random,omitempty"`
}

// Empty reports whether nothing is requested.
func (c Capabilities) Empty() bool {
	return len(c.Files) == 0 && len(c.Network) == 0 && len(c.Env) == 0 && !c.Clock && !c.Random
}

// Limits are per-call limits. Zero means the default.
type Limits struct {
	TimeoutMs int `yaml:"timeoutMs,omitempty" json:"timeoutMs,omitempty"`
	MemoryMiB int `yaml:"memoryMiB,omitempty" json:"memoryMiB,omitempty"`
	OutputKiB int `yaml:"outputKiB,omitempty" json:"outputKiB,omitempty"`
}

// Effective returns l with defaults filled in and values clamped to the
// caps.
func (l Limits) Effective() Limits {
	fill := func(v, def, max int) int {
		if v <= 0 {
			return def
		}
		if v > max {
			return max
		}
		return v
	}
	return Limits{
		TimeoutMs: fill(l.TimeoutMs, DefaultTimeoutMs, MaxTimeoutMs),
		MemoryMiB: fill(l.MemoryMiB, DefaultMemoryMiB, MaxMemoryMiB),
		OutputKiB: fill(l.OutputKiB, DefaultOutputKiB, MaxOutputKiB),
	}
}

// FieldError is a manifest error naming the offending field (a YAML path
// such as "limits.timeoutMs" or "commands[1].name").
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// isExtName is ^[a-z][a-z0-9-]*$, written out: a package-level regexp
// would be compiled in every guest's start-up (abi is linked into every
// Go guest) and pull the regexp package into each module, and a guest's
// start is validating its code (docs/performance.md).
func isExtName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return s != ""
}

// ModuleFile returns the module file name (Module, or "<name>.wasm").
func (m *Manifest) ModuleFile() string {
	if m.Module != "" {
		return m.Module
	}
	return m.Name + ".wasm"
}

// FailurePolicy returns Failure, or FailureSkip when empty.
func (m *Manifest) FailurePolicy() string {
	if m.Failure == "" {
		return FailureSkip
	}
	return m.Failure
}

// Handles reports whether hook is listed in Hooks.
func (m *Manifest) Handles(hook string) bool {
	for _, h := range m.Hooks {
		if h == hook {
			return true
		}
	}
	return false
}

// ConfigJSON returns Config as JSON ("null" when absent).
func (m *Manifest) ConfigJSON() (json.RawMessage, error) {
	b, err := json.Marshal(normalizeYAML(m.Config))
	if err != nil {
		return nil, &FieldError{Field: "config", Message: err.Error()}
	}
	return b, nil
}

// normalizeYAML turns map[any]any (possible from some YAML decoders) into
// map[string]any so that the value can be encoded as JSON.
func normalizeYAML(v any) any {
	switch t := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = normalizeYAML(e)
		}
		return m
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[k] = normalizeYAML(e)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, e := range t {
			s[i] = normalizeYAML(e)
		}
		return s
	}
	return v
}

// Validate checks the manifest and returns every problem found, each a
// *FieldError naming the field. It does not look at the module itself.
func (m *Manifest) Validate() []error {
	var errs []error
	// A field holding a control or invisible character is reported once,
	// for that; its other rules would only repeat the problem.
	badFields := m.checkText()
	for _, e := range badFields {
		errs = append(errs, e)
	}
	add := func(field, format string, args ...any) {
		if _, bad := badFields.get(field); bad {
			return
		}
		errs = append(errs, &FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	switch {
	case m.Name == "":
		add("name", "is required")
	case len(m.Name) > 64 || !isExtName(m.Name):
		add("name", "%q must match ^[a-z][a-z0-9-]*$ (at most 64 characters)", m.Name)
	}
	switch {
	case m.ABI == 0:
		add("abi", "is required (this host speaks ABI %d)", Version)
	case m.ABI != Version:
		add("abi", "unsupported ABI version %d (this host speaks ABI %d)", m.ABI, Version)
	}
	if m.Module != "" && (strings.ContainsAny(m.Module, `/\`) || m.Module == "." || m.Module == ".." || !strings.HasSuffix(m.Module, ".wasm")) {
		add("module", "%q must be a .wasm file name in the package directory", m.Module)
	}
	seen := map[string]bool{}
	for i, h := range m.Hooks {
		if ExportFor(h) == "" {
			add(fmt.Sprintf("hooks[%d]", i), "unknown hook %q (known: %s)", h, strings.Join(Hooks, ", "))
		} else if seen[h] {
			add(fmt.Sprintf("hooks[%d]", i), "hook %q listed twice", h)
		}
		seen[h] = true
	}
	cmds := map[string]bool{}
	for i, c := range m.Commands {
		f := fmt.Sprintf("commands[%d].name", i)
		if !isName(c.Name, true) {
			add(f, "%q must match ^[a-z][a-z0-9_-]*$", c.Name)
		} else if cmds[c.Name] {
			add(f, "command %q listed twice", c.Name)
		}
		cmds[c.Name] = true
	}
	m.validateTools(add)
	m.validateCLI(add)
	if len(m.Commands) > 0 && !m.Handles(HookCommand) {
		add("hooks", "commands are listed but hook %q is not", HookCommand)
	}
	for i, p := range m.InputPrefixes {
		if strings.TrimSpace(p) == "" {
			add(fmt.Sprintf("inputPrefixes[%d]", i), "must not be empty or white space")
		} else if strings.TrimLeftFunc(p, unicode.IsSpace) != p {
			add(fmt.Sprintf("inputPrefixes[%d]", i), "%q starts with white space, which inputs are matched without", p)
		}
	}
	if len(m.InputPrefixes) > 0 && !m.Handles(HookBeforeAgentStart) {
		add("inputPrefixes", "only applies to hook %q, which is not listed", HookBeforeAgentStart)
	}
	for i, g := range m.Capabilities.Files {
		if err := ValidateGlob(g); err != nil {
			add(fmt.Sprintf("capabilities.files[%d]", i), "%v", err)
		}
	}
	for i, h := range m.Capabilities.Network {
		if err := ValidateHostPattern(h); err != nil {
			add(fmt.Sprintf("capabilities.network[%d]", i), "%v", err)
		}
	}
	for i, e := range m.Capabilities.Env {
		if e == "" || strings.ContainsAny(e, "= \x00") {
			add(fmt.Sprintf("capabilities.env[%d]", i), "%q is not a variable name", e)
		}
	}
	checkLimit := func(field string, v, max int) {
		if v < 0 {
			add(field, "must not be negative")
		} else if v > max {
			add(field, "%d exceeds the host cap of %d", v, max)
		}
	}
	checkLimit("limits.timeoutMs", m.Limits.TimeoutMs, MaxTimeoutMs)
	checkLimit("limits.memoryMiB", m.Limits.MemoryMiB, MaxMemoryMiB)
	checkLimit("limits.outputKiB", m.Limits.OutputKiB, MaxOutputKiB)
	if m.Failure != "" && m.Failure != FailureSkip && m.Failure != FailureAbort {
		add("failure", "%q must be %q or %q", m.Failure, FailureSkip, FailureAbort)
	}
	if _, err := m.ConfigJSON(); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// checkText finds the manifest strings holding a rune that does not show as
// itself on a terminal (control characters such as ESC or a carriage
// return, bidi overrides, zero-width and other invisible runes) or invalid
// UTF-8. Manifest text is shown to the user when a grant is asked for, so
// such a rune could make the question read differently from what answering
// yes grants (a cursor move that hides "network" behind "clock"). Config
// strings are data for the guest and may also hold line feeds and tabs.
// The result maps each offending field to its error, in field order.
func (m *Manifest) checkText() orderedErrors {
	var out orderedErrors
	check := func(field, s string, lines bool) {
		if msg := badText(s, lines); msg != "" {
			out.add(field, msg)
		}
	}
	check("name", m.Name, false)
	check("version", m.Version, false)
	check("module", m.Module, false)
	for i, h := range m.Hooks {
		check(fmt.Sprintf("hooks[%d]", i), h, false)
	}
	for i, c := range m.Commands {
		check(fmt.Sprintf("commands[%d].name", i), c.Name, false)
		check(fmt.Sprintf("commands[%d].description", i), c.Description, false)
		check(fmt.Sprintf("commands[%d].argumentHint", i), c.ArgumentHint, false)
	}
	for i, f := range m.Flags {
		check(fmt.Sprintf("flags[%d].name", i), f.Name, false)
		check(fmt.Sprintf("flags[%d].type", i), f.Type, false)
		check(fmt.Sprintf("flags[%d].description", i), f.Description, false)
		if d, ok := f.Default.(string); ok {
			check(fmt.Sprintf("flags[%d].default", i), d, false)
		}
	}
	for i, s := range m.Shortcuts {
		check(fmt.Sprintf("shortcuts[%d].key", i), s.Key, false)
		check(fmt.Sprintf("shortcuts[%d].description", i), s.Description, false)
		check(fmt.Sprintf("shortcuts[%d].command", i), s.Command, false)
		check(fmt.Sprintf("shortcuts[%d].args", i), s.Args, false)
	}
	for i, p := range m.InputPrefixes {
		check(fmt.Sprintf("inputPrefixes[%d]", i), p, false)
	}
	for i, g := range m.Capabilities.Files {
		check(fmt.Sprintf("capabilities.files[%d]", i), g, false)
	}
	for i, h := range m.Capabilities.Network {
		check(fmt.Sprintf("capabilities.network[%d]", i), h, false)
	}
	for i, e := range m.Capabilities.Env {
		check(fmt.Sprintf("capabilities.env[%d]", i), e, false)
	}
	check("failure", m.Failure, false)
	var walk func(field string, v any)
	walk = func(field string, v any) {
		switch t := v.(type) {
		case string:
			check(field, t, true)
		case map[string]any:
			for _, k := range sortedKeys(t) {
				if msg := badText(k, false); msg != "" {
					out.add(field, "key "+msg)
					continue
				}
				walk(field+"."+k, t[k])
			}
		case []any:
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", field, i), e)
			}
		}
	}
	walk("config", normalizeYAML(m.Config))
	for i, t := range m.Tools {
		check(fmt.Sprintf("tools[%d].name", i), t.Name, false)
		check(fmt.Sprintf("tools[%d].description", i), t.Description, true)
		check(fmt.Sprintf("tools[%d].snippet", i), t.Snippet, false)
		for j, g := range t.Guidelines {
			check(fmt.Sprintf("tools[%d].guidelines[%d]", i, j), g, false)
		}
		if p, ok := t.Parameters.(string); ok {
			check(fmt.Sprintf("tools[%d].parameters", i), p, false)
		} else {
			walk(fmt.Sprintf("tools[%d].parameters", i), normalizeYAML(t.Parameters))
		}
	}
	return out
}

// badText describes the first rune of s that may not appear in manifest
// text, or returns "" when there is none. With lines set, line feeds and
// tabs are allowed.
func badText(s string, lines bool) string {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		what := "an invisible or control character"
		switch {
		case r == utf8.RuneError && n == 1:
			what = "invalid UTF-8"
		case Printable(r) || (lines && (r == '\n' || r == '\t')):
			i += n
			continue
		}
		return fmt.Sprintf("contains %s (%s at byte %d); manifest text must be printable", what, escapeRune(s[i:i+n]), i)
	}
	return ""
}

// orderedErrors maps fields to errors and keeps the order they were found.
type orderedErrors []*FieldError

func (o *orderedErrors) add(field, msg string) {
	if _, dup := o.get(field); !dup {
		*o = append(*o, &FieldError{Field: field, Message: msg})
	}
}

func (o orderedErrors) get(field string) (*FieldError, bool) {
	for _, e := range o {
		if e.Field == field {
			return e, true
		}
	}
	return nil, false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ValidateGlob checks a file capability glob: relative, slash-separated, no
// "." or ".." element, and valid path.Match syntax ("**" allowed as a whole
// element).
func ValidateGlob(g string) error {
	if g == "" {
		return fmt.Errorf("empty glob")
	}
	if strings.HasPrefix(g, "/") || strings.Contains(g, `\`) || (len(g) > 1 && g[1] == ':') {
		return fmt.Errorf("%q must be relative to the project and use '/'", g)
	}
	for _, el := range strings.Split(g, "/") {
		switch el {
		case "", ".", "..":
			return fmt.Errorf("%q must not contain empty, '.' or '..' elements", g)
		case "**":
			continue
		}
		if _, err := path.Match(el, ""); err != nil {
			return fmt.Errorf("%q: %v", g, err)
		}
	}
	return nil
}

// MatchGlob reports whether the slash-separated relative path p matches
// glob g (path.Match per element; "**" matches zero or more elements).
//
// Hidden names must be named: an element starting with "." (.env, .git,
// .ssh) matches only a glob element that starts with "." too, and "**"
// never descends into one. So a grant of "*" or "**" does not hand over
// .env files; ".env", ".*" or ".git/**" do, and the grant question shows
// them as written.
func MatchGlob(g, p string) bool {
	return matchElems(strings.Split(g, "/"), strings.Split(p, "/"))
}

// matchElems matches path elements against glob elements. It fills a table
// of which glob suffixes match which path suffixes, so several "**" cost
// len(g)·len(p) steps instead of growing exponentially: a guest chooses the
// path, and matching runs on the host, outside the call's deadline.
func matchElems(g, p []string) bool {
	// ok[i][j]: g[i:] matches p[j:]. Row len(g) is the empty glob.
	ok := make([][]bool, len(g)+1)
	for i := range ok {
		ok[i] = make([]bool, len(p)+1)
	}
	ok[len(g)][len(p)] = true
	for i := len(g) - 1; i >= 0; i-- {
		for j := len(p); j >= 0; j-- {
			switch {
			case g[i] == "**":
				// Zero elements, or one more (not hidden) element staying
				// on "**".
				ok[i][j] = ok[i+1][j] || (j < len(p) && !hidden(p[j]) && ok[i][j+1])
			case j < len(p):
				ok[i][j] = matchElem(g[i], p[j]) && ok[i+1][j+1]
			}
		}
	}
	return ok[0][0]
}

// hidden reports whether a path element is a hidden name.
func hidden(el string) bool { return strings.HasPrefix(el, ".") }

// matchElem matches one element; a hidden name needs a hidden pattern.
func matchElem(g, p string) bool {
	if hidden(p) && !hidden(g) {
		return false
	}
	m, _ := path.Match(g, p)
	return m
}

// WantsInput reports whether before_agent_start should run for input: always
// without InputPrefixes, else when the input (leading white space ignored)
// starts with one of them.
func (m *Manifest) WantsInput(input string) bool {
	if len(m.InputPrefixes) == 0 {
		return true
	}
	in := strings.TrimLeftFunc(input, unicode.IsSpace)
	for _, p := range m.InputPrefixes {
		if strings.HasPrefix(in, p) {
			return true
		}
	}
	return false
}
