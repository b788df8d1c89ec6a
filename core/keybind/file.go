package keybind

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/settings"
)

// FileName is the file's name in the agent directory.
const FileName = "keybindings.json"

// Diagnostic kinds of [ParseFile].
const (
	KindError   = "error"   // the file cannot be used at all
	KindWarning = "warning" // one entry cannot be used; the rest apply
)

// Config is what one keybindings.json sets: action id to its keys. An
// action set to an empty list has no key; one absent keeps its defaults.
type Config struct {
	File string
	Set  map[string][]Key
	// Order is the ids in the order the file gives them.
	Order []string
}

// ParseFile reads the contents of a keybindings.json (file names it in
// diagnostics). Every entry it cannot use is reported and left out, so
// that action keeps its defaults; the others apply.
func ParseFile(file string, data []byte) (Config, []diag.Diagnostic) {
	c := Config{File: file, Set: map[string][]Key{}}
	var ds []diag.Diagnostic
	add := func(kind string, line int, format string, args ...any) {
		ds = append(ds, diag.Diagnostic{Kind: kind, Path: file, Line: line, Message: fmt.Sprintf(format, args...)})
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	entries, err := members(data)
	if err != nil {
		line, err := settings.DecodeError(data, err)
		add(KindError, line, "cannot read the key bindings: %v; pi uses its default keys", err)
		return c, ds
	}
	ids := map[string]Action{}
	var all []string
	for _, a := range Actions(Platform{}) {
		ids[a.ID] = a
		all = append(all, a.ID)
	}
	// A legacy name counts only when the new id is not also given, as in
	// the established harness.
	given := map[string]bool{}
	for _, e := range entries {
		given[e.name] = true
	}
	for _, e := range entries {
		id := e.name
		if id == "$schema" {
			continue
		}
		if n, ok := legacyNames[id]; ok {
			if given[n] {
				add(KindWarning, e.line, "%s is the old name of %s, which the file also sets; the old name is ignored", id, n)
				continue
			}
			id = n
		}
		a, ok := ids[id]
		if !ok {
			hint := ""
			if n := settings.Nearest(id, all); n != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", n)
			}
			add(KindWarning, e.line, "unknown action %q%s; ignored", id, hint)
			continue
		}
		keys, err := decodeKeys(e.value)
		if err != nil {
			add(KindWarning, e.line, "%s: %v; its default keys stay (%s)", id, err, defaultsText(a.Defaults))
			continue
		}
		if !a.Applies {
			add(KindWarning, e.line, "%s has no effect in pi: %s", id, a.Note)
		}
		for _, k := range keys {
			if k.Name == "clear" {
				add(KindWarning, e.line, "%s: %s never reaches pi: its terminal library does not report the clear key", id, k)
			}
		}
		if _, dup := c.Set[id]; !dup {
			c.Order = append(c.Order, id)
		}
		c.Set[id] = keys
	}
	ds = append(ds, c.conflicts(entries)...)
	return c, ds
}

// conflicts reports a key the file gives to two actions pi dispatches (the
// established harness finds the same conflicts, among the file's entries).
func (c Config) conflicts(entries []member) []diag.Diagnostic {
	applies := map[string]bool{}
	for _, a := range Actions(Platform{}) {
		applies[a.ID] = a.Applies
	}
	line := map[string]int{}
	for _, e := range entries {
		id := e.name
		if n, ok := legacyNames[id]; ok {
			id = n
		}
		line[id] = e.line
	}
	var ds []diag.Diagnostic
	claimed := map[string]string{}
	for _, id := range c.Order {
		if !applies[id] {
			continue
		}
		for _, k := range c.Set[id] {
			s := k.Strokes()[0]
			if other, ok := claimed[s]; ok && other != id {
				ds = append(ds, diag.Diagnostic{Kind: KindWarning, Path: c.File, Line: line[id],
					Message: fmt.Sprintf("%s is set for both %s and %s; where both apply, %s acts", k, other, id, first(other, id))})
				continue
			}
			claimed[s] = id
		}
	}
	return ds
}

// first is which of two actions bound to one key the UI tries first: the
// app.* actions before the editor's, then the table's order.
func first(a, b string) string {
	rank := func(id string) int {
		for i, x := range Actions(Platform{}) {
			if x.ID == id {
				if strings.HasPrefix(id, "app.") {
					return i - 1000
				}
				return i
			}
		}
		return 0
	}
	if rank(b) < rank(a) {
		return b
	}
	return a
}

func defaultsText(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

// decodeKeys reads one value: a key or a list of keys.
func decodeKeys(raw json.RawMessage) ([]Key, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '"' && t[0] != '[' {
		return nil, fmt.Errorf("must be a key or a list of keys, not %s", describe(raw))
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		k, err := Parse(one)
		if err != nil {
			return nil, err
		}
		return []Key{k}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("must be a key or a list of keys, not %s", describe(raw))
	}
	out := []Key{}
	seen := map[string]bool{}
	for _, s := range list {
		k, err := Parse(s)
		if err != nil {
			return nil, err
		}
		if !seen[k.String()] {
			seen[k.String()] = true
			out = append(out, k)
		}
	}
	return out, nil
}

func describe(raw json.RawMessage) string {
	switch t := bytes.TrimSpace(raw); {
	case len(t) == 0:
		return "nothing"
	case t[0] == '{':
		return "an object"
	case t[0] == '[':
		return "a list with something other than text"
	case t[0] == '"':
		return "text"
	case string(t) == "null":
		return "null"
	case string(t) == "true" || string(t) == "false":
		return "true or false"
	}
	return "a number"
}

// member is one top-level entry of the file.
type member struct {
	name  string
	value json.RawMessage
	line  int
}

// members reads the top-level object's entries in order, with the line of
// each name.
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("the file must hold an object of action ids, not %s", describe(data))
	}
	var out []member
	for dec.More() {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{name: name, value: v, line: 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n")) + leadingNewlines(data[min(int(off), len(data)):])})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected text after the object")
	}
	return out, nil
}

// leadingNewlines counts the line breaks between an offset the decoder
// reports (just after the previous value or comma) and the next name.
func leadingNewlines(b []byte) int {
	n := 0
	for _, c := range b {
		switch c {
		case '\n':
			n++
		case ' ', '\t', '\r', ',':
		default:
			return n
		}
	}
	return n
}
