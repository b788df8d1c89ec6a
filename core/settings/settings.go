package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/piwasm/pi/core/diag"
)

// Diagnostic kinds of this package.
const (
	// KindUnknown marks a key pi does not know (with the nearest known key).
	KindUnknown = "unknown-setting"
	// KindInvalid marks a value of the wrong type or out of range; the
	// key's default stays in force.
	KindInvalid = "invalid-setting"
	// KindIgnored marks a known key pi does not act on (yet), or one set
	// in a file that may not set it.
	KindIgnored = "ignored-setting"
	// KindError marks a file that is not a JSON object.
	KindError = "error"
)

// Scope of a file.
const (
	// FileGlobal is the agent dir's settings.json.
	FileGlobal = "global"
	// FileProject is the trusted project's .pi/settings.json.
	FileProject = "project"
)

// Value is one file's value of one key.
type Value struct {
	File  string          // absolute path of the settings file
	Scope string          // FileGlobal or FileProject
	Line  int             // 1-based line of the key, 0 when unknown
	Raw   json.RawMessage // the JSON value as written
}

// Layer is one parsed settings file.
type Layer struct {
	File   string
	Scope  string
	values map[string]Value // by dotted key name; valid values of known keys only
}

// Parse reads one settings file's bytes (already read, with a byte-order
// mark allowed) against reg. Known keys with valid values go into the
// layer; unknown keys, invalid values, keys set in a file that may not set
// them and keys pi does not act on come back as diagnostics naming the file
// and line. Empty data is an empty layer; data that is not a JSON object
// is an error diagnostic and an empty layer.
func Parse(reg *Registry, file, scope string, data []byte) (Layer, []diag.Diagnostic) {
	l := Layer{File: file, Scope: scope, values: map[string]Value{}}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(bytes.TrimSpace(data)) == 0 {
		return l, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		line, err := DecodeError(data, err)
		return l, []diag.Diagnostic{{Kind: KindError, Path: file, Line: line, Message: fmt.Sprintf("invalid settings JSON: %v", err)}}
	}
	p := parser{reg: reg, l: &l, data: data}
	p.object("", top, 0)
	return l, p.ds
}

type parser struct {
	reg  *Registry
	l    *Layer
	data []byte
	ds   []diag.Diagnostic
}

func (p *parser) add(kind string, line int, format string, args ...any) {
	p.ds = append(p.ds, diag.Diagnostic{Kind: kind, Path: p.l.File, Line: line, Message: fmt.Sprintf(format, args...)})
}

// object walks the members of the object at prefix; from is the byte
// offset where the object starts (for line numbers).
func (p *parser) object(prefix string, members map[string]json.RawMessage, from int) {
	names := make([]string, 0, len(members))
	for n := range members {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		raw := members[n]
		name := n
		if prefix != "" {
			name = prefix + "." + n
		}
		off := keyOffset(p.data, from, n)
		line := 0
		if off >= 0 {
			line = lineAt(p.data, int64(off))
		}
		if p.reg.parents[name] {
			var sub map[string]json.RawMessage
			if string(bytes.TrimSpace(raw)) == "null" {
				continue
			}
			if err := json.Unmarshal(raw, &sub); err != nil {
				p.add(KindInvalid, line, "%s must be an object; it is left out", name)
				continue
			}
			p.object(name, sub, max(off, from))
			continue
		}
		k, ok := p.reg.keys[name]
		if !ok {
			if near := p.reg.Nearest(name); near != "" {
				p.add(KindUnknown, line, "unknown setting %q (did you mean %q?)", name, near)
			} else {
				p.add(KindUnknown, line, "unknown setting %q", name)
			}
			continue
		}
		if msg := k.validate(raw); msg != "" {
			def := ""
			if k.Default != "" {
				def = "; the default " + k.Default + " applies"
			}
			p.add(KindInvalid, line, "%s %s%s", name, msg, def)
			continue
		}
		if c, changed := k.clamp(raw); changed {
			p.add(KindInvalid, line, "%s must be a whole number from %d to %d; %s applies", name, k.Clamp[0], k.Clamp[1], c)
			raw = c
		}
		if k.Scope == GlobalOnly && p.l.Scope == FileProject {
			p.add(KindIgnored, line, "%s can only be set in the agent dir's settings.json; ignored here", name)
			continue
		}
		if k.Status == Unsupported {
			why := k.Note
			if why == "" {
				why = "not implemented yet"
			}
			p.add(KindIgnored, line, "%s has no effect in pi (%s)", name, why)
		}
		p.l.values[name] = Value{File: p.l.File, Scope: p.l.Scope, Line: line, Raw: raw}
	}
}

// Settings is the merged view of the settings files of one load: the
// global file first, then the trusted project's.
type Settings struct {
	reg    *Registry
	layers []Layer
}

// New merges the layers (global first) under reg.
func New(reg *Registry, layers ...Layer) *Settings {
	return &Settings{reg: reg, layers: layers}
}

// Registry returns the registry the settings were read with.
func (s *Settings) Registry() *Registry {
	if s == nil || s.reg == nil {
		return Builtin()
	}
	return s.reg
}

// Files lists the files read, global first.
func (s *Settings) Files() []string {
	if s == nil {
		return nil
	}
	out := make([]string, 0, len(s.layers))
	for _, l := range s.layers {
		out = append(out, l.File)
	}
	return out
}

// Layers returns every file's value of name, global first: for keys whose
// values add up (resource lists) or that their reader merges itself
// (permissions, sandbox).
func (s *Settings) Layers(name string) []Value {
	if s == nil {
		return nil
	}
	var out []Value
	for _, l := range s.layers {
		if v, ok := l.values[name]; ok {
			out = append(out, v)
		}
	}
	return out
}

// Lookup returns the value in force for name: the project's over the
// global one (nested keys merge member by member, as the established
// harness's deep merge does). ok is false when no file sets it.
func (s *Settings) Lookup(name string) (Value, bool) {
	l := s.Layers(name)
	for i := len(l) - 1; i >= 0; i-- {
		if string(bytes.TrimSpace(l[i].Raw)) != "null" {
			return l[i], true
		}
	}
	return Value{}, false
}

// raw returns the value in force or the key's default as JSON; nil when
// there is neither.
func (s *Settings) raw(name string) json.RawMessage {
	if v, ok := s.Lookup(name); ok {
		return v.Raw
	}
	if k, ok := s.Registry().Key(name); ok && k.Default != "" {
		return json.RawMessage(k.Default)
	}
	return nil
}

// IsSet reports whether a file sets name.
func (s *Settings) IsSet(name string) bool {
	_, ok := s.Lookup(name)
	return ok
}

// Bool returns the boolean in force for name (false when the value in
// force is not a boolean, e.g. quietStartup "header").
func (s *Settings) Bool(name string) bool {
	var b bool
	_ = json.Unmarshal(s.raw(name), &b)
	return b
}

// Int returns the whole number in force for name, and false when the value
// in force is not a number (httpIdleTimeoutMs "disabled") or there is none.
func (s *Settings) Int(name string) (int64, bool) {
	var f float64
	if json.Unmarshal(s.raw(name), &f) != nil || f != math.Trunc(f) {
		return 0, false
	}
	return int64(f), true
}

// String returns the text in force for name ("" when it is not text).
func (s *Settings) String(name string) string {
	var v string
	_ = json.Unmarshal(s.raw(name), &v)
	return v
}

// Strings returns the list in force for name.
func (s *Settings) Strings(name string) []string {
	var v []string
	_ = json.Unmarshal(s.raw(name), &v)
	return v
}

// Decode unmarshals the value in force for name into v; false when there is
// neither a value nor a default.
func (s *Settings) Decode(name string, v any) (bool, error) {
	raw := s.raw(name)
	if raw == nil {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("settings: %s: %w", name, err)
	}
	return true, nil
}

// MergedObject returns the members of an [Object] key merged over the
// files (a project's member replaces the global one of the same name).
func (s *Settings) MergedObject(name string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, v := range s.Layers(name) {
		var m map[string]json.RawMessage
		if json.Unmarshal(v.Raw, &m) == nil {
			for k, x := range m {
				out[k] = x
			}
		}
	}
	return out
}

// Dump returns every key a file sets, with the value in force and the file
// it comes from, sorted by name: what `pi resources` shows.
func (s *Settings) Dump() []Entry {
	if s == nil {
		return nil
	}
	seen := map[string]bool{}
	var out []Entry
	for i := len(s.layers) - 1; i >= 0; i-- {
		for name := range s.layers[i].values {
			if seen[name] {
				continue
			}
			seen[name] = true
			v, _ := s.Lookup(name)
			k, _ := s.Registry().Key(name)
			out = append(out, Entry{Name: name, Value: v.Raw, File: v.File, Line: v.Line, Status: k.Status})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Entry is one key in force, for listings.
type Entry struct {
	Name   string          `json:"name"`
	Value  json.RawMessage `json:"value"`
	File   string          `json:"file"`
	Line   int             `json:"line,omitempty"`
	Status Status          `json:"status"`
}

// lineAt returns the 1-based line holding byte offset off.
// DecodeError says where decoding a settings file's data as an object
// failed (its 1-based line, 0 when unknown) and what to tell the person:
// one wording for every reader of settings files.
func DecodeError(data []byte, err error) (int, error) {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return lineAt(data, se.Offset), err
	case errors.As(err, &te):
		return lineAt(data, te.Offset), errors.New("settings must be a JSON object")
	}
	return 0, err
}

func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// keyOffset finds, from byte from on, the first "key" followed by a colon:
// a best-effort place for a diagnostic; -1 when not found.
func keyOffset(data []byte, from int, key string) int {
	quoted, _ := json.Marshal(key)
	for from < len(data) {
		i := bytes.Index(data[from:], quoted)
		if i < 0 {
			return -1
		}
		at := from + i
		rest := bytes.TrimLeft(data[at+len(quoted):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return at
		}
		from = at + len(quoted)
	}
	return -1
}

// LineOf returns the line of key in data (nested names by their last
// part, searched after their parents), 0 when not found.
func LineOf(data []byte, name string) int {
	from := 0
	for _, part := range strings.Split(name, ".") {
		off := keyOffset(data, from, part)
		if off < 0 {
			return 0
		}
		from = off
	}
	return lineAt(data, int64(from))
}
