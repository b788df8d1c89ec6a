package resources

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/keybind"
	"github.com/piwasm/pi/core/settings"
)

// settingsFileName is the name of the settings file in the agent dir and in
// the project's .pi dir.
const settingsFileName = "settings.json"

// SettingsSection is a named prompt section declared in settings.json,
// either inline (`"text"`) or read from a file (`"file"`, relative to the
// settings file's directory). Order is nil when the file gave none.
// Interpolate opts the section into {{variable}} interpolation. Source is
// "settings:<absolute settings file>".
type SettingsSection struct {
	Name        string   `json:"name"`
	Order       *float64 `json:"order,omitempty"`
	Text        string   `json:"text"`
	Interpolate bool     `json:"interpolate,omitempty"`
	Source      string   `json:"source"`
}

// Settings is the merged content of the settings files. Paths are absolute:
// relative entries are resolved against the directory of the settings file
// that lists them, and `~` against the home directory.
//
// Files lists the settings files that were read, global first.
// DefaultProjectTrust is nil unless the global settings set it.
type Settings struct {
	Files               []string          `json:"files"`
	Skills              []string          `json:"skills,omitempty"`
	Prompts             []string          `json:"prompts,omitempty"`
	Extensions          []string          `json:"extensions,omitempty"`
	DefaultProjectTrust *bool             `json:"defaultProjectTrust,omitempty"`
	Sections            []SettingsSection `json:"sections,omitempty"`
	Variables           map[string]string `json:"variables,omitempty"`
	// SuppressContexts empties the runtime-context snapshot (either layer
	// may set it; neither can unset the other's).
	SuppressContexts bool `json:"suppressContexts,omitempty"`
	// SkillFilters and PromptFilters are the "!glob", "+path" and "-path"
	// entries of skills and prompts, one per settings file (see [Filter]).
	SkillFilters  []Filter `json:"-"`
	PromptFilters []Filter `json:"-"`
	// MaxPromptFileBytes caps each context file and settings section file
	// (0: [defaultMaxPromptFileBytes]). A later layer's value wins.
	MaxPromptFileBytes int64 `json:"maxPromptFileBytes,omitempty"`
	// ExtensionConfig is the user's config per extension name: keys that
	// replace the manifest's config keys of the same name (a null value
	// removes one). The project layer's keys replace the global ones.
	ExtensionConfig map[string]map[string]json.RawMessage `json:"extensionConfig,omitempty"`
}

// loadSettingsFile reads one settings.json. A missing file yields empty
// settings and no diagnostic. Invalid JSON yields an error diagnostic (with
// the line when it can be told) and empty settings; a bad entry yields a
// diagnostic naming the file and is left out while the rest loads.
//
// Recognised keys: "skills", "prompts", "extensions" (lists of paths),
// "defaultProjectTrust" ("ask", "always" or "never"), "sections"
// (name → {"order", "file" | "text", "interpolate"}), "variables"
// (name → string), "maxPromptFileBytes" (a positive number of bytes) and
// "extensionConfig" (extension name → object of config keys).
// Other keys are ignored. A section "file" must be a regular file no larger
// than this file's maxPromptFileBytes (default 1 MiB). Section names must match
// ^[a-z][a-z0-9_-]*$ and must not be "preamble"; variable names must match
// ^[a-z][a-z0-9_]*$. Sections come out sorted by name.
//
// The same bytes go to the settings model ([settings.Parse]) as scope, so
// the file is read once per load; the model's layer comes back with the
// model's diagnostics (unknown, invalid and ignored keys) after this
// function's own. A file that cannot be read or is not JSON gives no layer.
func loadSettingsFile(path, home, scope string, reg *settings.Registry) (Settings, *settings.Layer, []diag.Diagnostic) {
	var ds diagnostics
	var s Settings
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	data, err := readSettingsBytes(abs)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ds.add(KindError, abs, "cannot read settings: %v", err)
		}
		return s, nil, ds
	}
	data = bytes.TrimPrefix(data, []byte(bom))
	s.Files = []string{abs}
	if len(bytes.TrimSpace(data)) == 0 {
		layer, _ := settings.Parse(reg, abs, scope, nil)
		return s, &layer, ds
	}
	s, ds = parseSettingsData(s, data, abs, home, ds)
	if t := bytes.TrimSpace(data); !json.Valid(t) || t[0] != '{' {
		return s, nil, ds
	}
	layer, md := settings.Parse(reg, abs, scope, data)
	return s, &layer, append(ds, md...)
}

// parseSettingsData reads the keys resources acts on from one file's data.
func parseSettingsData(s Settings, data []byte, abs, home string, ds diagnostics) (Settings, diagnostics) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		line, err := settings.DecodeError(data, err)
		ds.addLine(KindError, abs, line, "invalid settings JSON: %v", err)
		return s, ds
	}
	dir := filepath.Dir(abs)
	lineOf := func(key string) int { return keyLine(data, key) }

	s.Skills = settingsPaths(top, "skills", dir, home, abs, lineOf, &ds)
	s.Prompts = settingsPaths(top, "prompts", dir, home, abs, lineOf, &ds)
	if f := settingsFilter(top, "skills", dir); f != nil {
		s.SkillFilters = []Filter{*f}
	}
	if f := settingsFilter(top, "prompts", dir); f != nil {
		s.PromptFilters = []Filter{*f}
	}
	s.Extensions = settingsPaths(top, "extensions", dir, home, abs, lineOf, &ds)

	if raw, ok := top["defaultProjectTrust"]; ok {
		v, msg := parseDefaultProjectTrust(raw)
		s.DefaultProjectTrust = v
		if msg != "" {
			ds.addLine(KindWarning, abs, lineOf("defaultProjectTrust"), "%s", msg)
		}
	}

	if raw, ok := top["suppressContexts"]; ok {
		if err := json.Unmarshal(raw, &s.SuppressContexts); err != nil {
			ds.addLine(KindWarning, abs, lineOf("suppressContexts"), "suppressContexts must be true or false")
		}
	}

	if raw, ok := top["maxPromptFileBytes"]; ok && !isJSONNull(raw) {
		var n float64
		if err := json.Unmarshal(raw, &n); err != nil || n < 1 || n != float64(int64(n)) {
			ds.addLine(KindWarning, abs, lineOf("maxPromptFileBytes"), "maxPromptFileBytes must be a positive whole number of bytes")
		} else {
			s.MaxPromptFileBytes = int64(n)
		}
	}

	if raw, ok := top["variables"]; ok && !isJSONNull(raw) {
		var vars map[string]json.RawMessage
		if err := json.Unmarshal(raw, &vars); err != nil {
			ds.addLine(KindWarning, abs, lineOf("variables"), "variables must be an object of names to text")
		} else {
			for _, name := range sortedKeys(vars) {
				if err := abi.ValidVariableName(name); err != nil {
					ds.addLine(KindWarning, abs, lineOf(name), "variable left out: %v", err)
					continue
				}
				var val string
				if err := json.Unmarshal(vars[name], &val); err != nil || isJSONNull(vars[name]) {
					ds.addLine(KindWarning, abs, lineOf(name), "variable %q left out: its value must be text", name)
					continue
				}
				if s.Variables == nil {
					s.Variables = map[string]string{}
				}
				s.Variables[name] = val
			}
		}
	}

	if raw, ok := top["extensionConfig"]; ok && !isJSONNull(raw) {
		var exts map[string]json.RawMessage
		if err := json.Unmarshal(raw, &exts); err != nil {
			ds.addLine(KindWarning, abs, lineOf("extensionConfig"), "extensionConfig must be an object of extension names to config objects")
		} else {
			for _, name := range sortedKeys(exts) {
				if isJSONNull(exts[name]) {
					continue
				}
				var keys map[string]json.RawMessage
				if err := json.Unmarshal(exts[name], &keys); err != nil {
					ds.addLine(KindWarning, abs, lineOf(name), "extensionConfig.%s left out: it must be an object of config keys", name)
					continue
				}
				if s.ExtensionConfig == nil {
					s.ExtensionConfig = map[string]map[string]json.RawMessage{}
				}
				s.ExtensionConfig[name] = keys
			}
		}
	}

	if raw, ok := top["sections"]; ok && !isJSONNull(raw) {
		var secs map[string]json.RawMessage
		if err := json.Unmarshal(raw, &secs); err != nil {
			ds.addLine(KindWarning, abs, lineOf("sections"), "sections must be an object of names to section settings")
		} else {
			for _, name := range sortedKeys(secs) {
				if sec, ok := parseSection(name, secs[name], abs, dir, home, s.MaxPromptFileBytes, lineOf(name), &ds); ok {
					s.Sections = append(s.Sections, sec)
				}
			}
		}
	}
	return s, ds
}

type sectionJSON struct {
	Order       *float64 `json:"order"`
	File        *string  `json:"file"`
	Text        *string  `json:"text"`
	Interpolate bool     `json:"interpolate"`
}

func parseSection(name string, raw json.RawMessage, file, dir, home string, maxBytes int64, line int, ds *diagnostics) (SettingsSection, bool) {
	if name == "preamble" {
		ds.addLine(KindError, file, line, "section %q left out: the preamble cannot be set from settings (use SYSTEM.md or --system-prompt)", name)
		return SettingsSection{}, false
	}
	if err := abi.ValidSectionName(name); err != nil {
		ds.addLine(KindError, file, line, "section left out: %v", err)
		return SettingsSection{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var sj sectionJSON
	if err := dec.Decode(&sj); err != nil {
		ds.addLine(KindError, file, line, "section %q left out: %v", name, err)
		return SettingsSection{}, false
	}
	sec := SettingsSection{Name: name, Order: sj.Order, Interpolate: sj.Interpolate, Source: "settings:" + file}
	switch {
	case sj.File != nil && sj.Text != nil:
		ds.addLine(KindError, file, line, "section %q left out: give either \"file\" or \"text\", not both", name)
		return SettingsSection{}, false
	case sj.Text != nil:
		sec.Text = *sj.Text
	case sj.File != nil:
		p := resolvePath(*sj.File, dir, home)
		text, err := readTextMax(p, maxBytes)
		if err != nil {
			ds.addLine(KindError, file, line, "section %q left out: cannot read %s: %v", name, p, err)
			return SettingsSection{}, false
		}
		sec.Text = text
	default:
		ds.addLine(KindError, file, line, "section %q left out: it needs \"file\" or \"text\"", name)
		return SettingsSection{}, false
	}
	return sec, true
}

// settingsFilter collects the filter entries of a resource list.
func settingsFilter(top map[string]json.RawMessage, key, dir string) *Filter {
	var list []string
	if raw, ok := top[key]; !ok || json.Unmarshal(raw, &list) != nil {
		return nil
	}
	f := Filter{BaseDir: dir}
	for _, p := range list {
		if isOverride(p) && len(p) > 1 {
			f.Patterns = append(f.Patterns, p)
		}
	}
	if len(f.Patterns) == 0 {
		return nil
	}
	return &f
}

func settingsPaths(top map[string]json.RawMessage, key, dir, home, file string, lineOf func(string) int, ds *diagnostics) []string {
	raw, ok := top[key]
	if !ok || isJSONNull(raw) {
		return nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		ds.addLine(KindWarning, file, lineOf(key), "%s must be a list of paths", key)
		return nil
	}
	out := make([]string, 0, len(list))
	for _, p := range list {
		if strings.TrimSpace(p) == "" || isOverride(p) {
			continue
		}
		out = append(out, resolvePath(p, dir, home))
	}
	return out
}

// mergeSettings layers over on top of base and returns the result (the
// inputs are not modified). Files and path lists are concatenated (base
// first, duplicates dropped); a section or variable of over replaces the one
// of the same name in base, keeping its position, and new sections are
// appended. DefaultProjectTrust is taken from base only: a project cannot
// vouch for itself.
func mergeSettings(base, over Settings) Settings {
	out := Settings{
		Files:               appendUnique(nil, base.Files, over.Files),
		Skills:              appendUnique(nil, base.Skills, over.Skills),
		Prompts:             appendUnique(nil, base.Prompts, over.Prompts),
		Extensions:          appendUnique(nil, base.Extensions, over.Extensions),
		SkillFilters:        append(append([]Filter(nil), base.SkillFilters...), over.SkillFilters...),
		PromptFilters:       append(append([]Filter(nil), base.PromptFilters...), over.PromptFilters...),
		DefaultProjectTrust: base.DefaultProjectTrust,
		SuppressContexts:    base.SuppressContexts || over.SuppressContexts,
		MaxPromptFileBytes:  base.MaxPromptFileBytes,
	}
	if over.MaxPromptFileBytes > 0 {
		out.MaxPromptFileBytes = over.MaxPromptFileBytes
	}
	out.Sections = append(out.Sections, base.Sections...)
	for _, sec := range over.Sections {
		replaced := false
		for i := range out.Sections {
			if out.Sections[i].Name == sec.Name {
				out.Sections[i] = sec
				replaced = true
				break
			}
		}
		if !replaced {
			out.Sections = append(out.Sections, sec)
		}
	}
	for _, layer := range []Settings{base, over} {
		for name, keys := range layer.ExtensionConfig {
			if out.ExtensionConfig == nil {
				out.ExtensionConfig = map[string]map[string]json.RawMessage{}
			}
			if out.ExtensionConfig[name] == nil {
				out.ExtensionConfig[name] = map[string]json.RawMessage{}
			}
			for k, v := range keys {
				out.ExtensionConfig[name][k] = v
			}
		}
	}
	if len(base.Variables)+len(over.Variables) > 0 {
		out.Variables = map[string]string{}
		for k, v := range base.Variables {
			out.Variables[k] = v
		}
		for k, v := range over.Variables {
			out.Variables[k] = v
		}
	}
	return out
}

func appendUnique(dst []string, lists ...[]string) []string {
	seen := map[string]bool{}
	for _, s := range dst {
		seen[s] = true
	}
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				dst = append(dst, s)
			}
		}
	}
	return dst
}

func isJSONNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lineAt returns the 1-based line holding byte offset off (offsets past the
// end count as the last line).
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// keyLine finds the line of the first occurrence of "key" followed by a
// colon, as a best-effort location for a diagnostic; 0 when not found.
func keyLine(data []byte, key string) int {
	quoted, _ := json.Marshal(key)
	from := 0
	for {
		i := bytes.Index(data[from:], quoted)
		if i < 0 {
			return 0
		}
		at := from + i
		rest := bytes.TrimLeft(data[at+len(quoted):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return lineAt(data, int64(at))
		}
		from = at + len(quoted)
	}
}

// parseDefaultProjectTrust reads a defaultProjectTrust value as the other
// harness defines it: "ask" (nil; the default), "always" (true) or "never"
// (false). The values earlier pi versions wrote (true, false, "trusted",
// "untrusted") still work, with a warning, because the other harness
// treats them as "ask"; anything else is "ask" with a warning.
func parseDefaultProjectTrust(raw json.RawMessage) (*bool, string) {
	yes, no := true, false
	var v any
	_ = json.Unmarshal(raw, &v)
	legacy := func(was string, now string, b *bool) (*bool, string) {
		return b, fmt.Sprintf("defaultProjectTrust %s is an old pi value that the TypeScript pi ignores; write %q", was, now)
	}
	switch v := v.(type) {
	case nil:
		return nil, ""
	case string:
		switch v {
		case "ask":
			return nil, ""
		case "always":
			return &yes, ""
		case "never":
			return &no, ""
		}
		switch strings.ToLower(v) {
		case "trusted":
			return legacy(fmt.Sprintf("%q", v), "always", &yes)
		case "untrusted":
			return legacy(fmt.Sprintf("%q", v), "never", &no)
		}
		return nil, fmt.Sprintf("defaultProjectTrust must be \"ask\", \"always\" or \"never\", not %q; using \"ask\"", v)
	case bool:
		if v {
			return legacy("true", "always", &yes)
		}
		return legacy("false", "never", &no)
	}
	return nil, "defaultProjectTrust must be \"ask\", \"always\" or \"never\"; using \"ask\""
}

// readSettingsBytes reads a settings file: a regular file (a FIFO or a
// device in its place must not hang or flood pi) of at most
// [defaultMaxPromptFileBytes].
func readSettingsBytes(path string) ([]byte, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readCapped(f, defaultMaxPromptFileBytes)
}

// loadKeybindings reads the agent dir's keybindings.json with the checks
// settings files get (a regular file, at most 1 MiB). A missing file sets
// nothing and says nothing.
func loadKeybindings(path string) (keybind.Config, []diag.Diagnostic) {
	data, err := readSettingsBytes(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return keybind.Config{File: path}, nil
		}
		return keybind.Config{File: path}, []diag.Diagnostic{{Kind: KindError, Path: path, Message: fmt.Sprintf("cannot read the key bindings: %v; pi uses its default keys", err)}}
	}
	return keybind.ParseFile(path, data)
}
