package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Kind is the JSON type a key's value must have.
type Kind int

const (
	// Any accepts every JSON value.
	Any Kind = iota
	// Bool is true or false.
	Bool
	// Int is a whole number of at least zero.
	Int
	// Number is any JSON number.
	Number
	// String is a JSON string.
	String
	// Strings is a list of strings.
	Strings
	// List is a JSON array of anything.
	List
	// Object is a JSON object whose contents the reading package checks.
	Object
)

func (k Kind) String() string {
	switch k {
	case Bool:
		return "true or false"
	case Int:
		return "a whole number of at least 0"
	case Number:
		return "a number"
	case String:
		return "text"
	case Strings:
		return "a list of text"
	case List:
		return "a list"
	case Object:
		return "an object"
	}
	return "any value"
}

// Status says what pi does with a key.
type Status int

const (
	// Unsupported keys are accepted, and a file that sets one gets a
	// notice that pi does not act on it (yet); Note says why.
	Unsupported Status = iota
	// Applied keys take effect.
	Applied
	// NotApplicable keys concern something pi does not have by design
	// (telemetry, a share service, npm packages, a graphical display):
	// accepted without a notice, and docs/configuration.md says why.
	NotApplicable
	// Internal keys are written by the established harness for itself
	// (device id, changelog version): accepted without a notice.
	Internal
)

func (s Status) String() string {
	switch s {
	case Applied:
		return "applied"
	case NotApplicable:
		return "not-applicable"
	case Internal:
		return "internal"
	}
	return "unsupported"
}

// MarshalText writes the status as its name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Scope says which files may set a key.
type Scope int

const (
	// Anywhere: the global file and the trusted project's file.
	Anywhere Scope = iota
	// GlobalOnly: only the agent dir's settings.json; a project file that
	// sets it is told so and ignored.
	GlobalOnly
)

// Key describes one setting.
//
// Enum lists the strings allowed: with Kind String the only ones; with any
// other Kind they are accepted besides that kind (quietStartup is true,
// false or "header"). Check, when set, runs after the kind check and may
// refuse a value the kind allows. Default is the JSON text of the value in
// force when no file sets the key ("" when there is none).
type Key struct {
	Name    string
	Kind    Kind
	Enum    []string
	Default string
	Scope   Scope
	Status  Status
	Note    string
	Check   func(json.RawMessage) error
	// Clamp, when set, is the range [min, max] of a number key: a number
	// outside it, or with a fraction, is reported and the whole number
	// nearest to it within the range is used, as the established harness
	// clamps (editorPaddingX 7 draws as 3). Enum strings pass untouched.
	Clamp *[2]int
}

// Registry is a set of keys by name. A name with dots is nested: every
// prefix ("retry" of "retry.provider.timeoutMs") is an object whose
// unknown members are reported.
type Registry struct {
	keys    map[string]Key
	parents map[string]bool
	// names are the keys' names, sorted by name the first time Keys asks
	// (every run builds the registry; few list it).
	names  []string
	sorted sync.Once
}

// NewRegistry builds a registry of the given tables. A name given twice
// or a key nested under an [Object] key is an error.
func NewRegistry(tables ...[]Key) (*Registry, error) {
	n := 0
	for _, t := range tables {
		n += len(t)
	}
	r := &Registry{keys: make(map[string]Key, n), parents: map[string]bool{}, names: make([]string, 0, n)}
	for _, t := range tables {
		for _, k := range t {
			if k.Name == "" {
				return nil, errors.New("settings: a key without a name")
			}
			if _, dup := r.keys[k.Name]; dup {
				return nil, fmt.Errorf("settings: key %q registered twice", k.Name)
			}
			r.keys[k.Name] = k
			r.names = append(r.names, k.Name)
			// Every prefix up to a dot ("a" and "a.b" of "a.b.c").
			for i := 0; i < len(k.Name); i++ {
				if k.Name[i] == '.' {
					r.parents[k.Name[:i]] = true
				}
			}
		}
	}
	for p := range r.parents {
		if k, ok := r.keys[p]; ok && k.Kind != Object {
			return nil, fmt.Errorf("settings: %q has members but is not an object", p)
		}
		if k, ok := r.keys[p]; ok && k.Kind == Object {
			return nil, fmt.Errorf("settings: %q is checked by its reader, so it cannot have registered members", p)
		}
	}
	return r, nil
}

// Builtin is the registry of every key pi knows: the established harness's
// ([peerKeys]) and pi's own ([piKeys]).
func Builtin() *Registry {
	r, err := NewRegistry(peerKeys(), piKeys())
	if err != nil {
		// The tables are fixed in the source; TestBuiltin keeps them valid.
		return &Registry{keys: map[string]Key{}, parents: map[string]bool{}}
	}
	return r
}

// Key returns the key of that name.
func (r *Registry) Key(name string) (Key, bool) {
	k, ok := r.keys[name]
	return k, ok
}

// Keys returns every key, sorted by name.
func (r *Registry) Keys() []Key {
	r.sorted.Do(func() { sort.Strings(r.names) })
	out := make([]Key, 0, len(r.names))
	for _, n := range r.names {
		out = append(out, r.keys[n])
	}
	return out
}

// Nearest returns the known name closest to name (for "did you mean"), or
// "" when none is close.
func (r *Registry) Nearest(name string) string {
	r.sorted.Do(func() { sort.Strings(r.names) })
	cands := make([]string, 0, len(r.names)+len(r.parents))
	cands = append(cands, r.names...)
	for p := range r.parents {
		cands = append(cands, p)
	}
	return Nearest(name, cands)
}

// Nearest returns the candidate closest to word by edit distance (case
// folded), or "" when none is within a third of the word's length (at
// least 2 edits). Ties go to the alphabetically first.
func Nearest(word string, cands []string) string {
	best, bestD := "", math.MaxInt
	limit := max(2, len(word)/3)
	lw := strings.ToLower(word)
	sorted := slices.Clone(cands)
	sort.Strings(sorted)
	for _, c := range sorted {
		d := EditDistance(lw, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	if bestD > limit || bestD == 0 && best == word {
		return ""
	}
	return best
}

// EditDistance is the optimal-string-alignment distance: insertions,
// deletions, substitutions and swaps of neighbours each cost one.
func EditDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	rows := [3][]int{make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		pp, prev, cur := rows[0], rows[1], rows[2]
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		rows[0], rows[1], rows[2] = prev, cur, pp
	}
	return rows[1][len(rb)]
}

// clamp returns raw brought into k.Clamp (rounded down, then limited),
// and whether that changed it.
func (k Key) clamp(raw json.RawMessage) (json.RawMessage, bool) {
	var f float64
	if k.Clamp == nil || json.Unmarshal(raw, &f) != nil {
		return raw, false
	}
	n := min(max(math.Floor(f), float64(k.Clamp[0])), float64(k.Clamp[1]))
	if n == f {
		return raw, false
	}
	return json.RawMessage(fmt.Sprintf("%d", int(n))), true
}

// validate checks raw against k and returns a message for the user, or "".
func (k Key) validate(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return ""
	}
	var s string
	if len(k.Enum) > 0 && json.Unmarshal(raw, &s) == nil {
		if slices.Contains(k.Enum, s) {
			return k.check(raw)
		}
		if k.Kind == String || k.Kind == Any {
			return fmt.Sprintf("must be one of %s, not %q", quoteList(k.Enum), s)
		}
	}
	ok := false
	switch k.Kind {
	case Any:
		ok = true
	case Bool:
		var b bool
		ok = json.Unmarshal(raw, &b) == nil
	case Int:
		var n float64
		ok = json.Unmarshal(raw, &n) == nil && n >= 0 && n == math.Trunc(n) && n <= 1<<53
	case Number:
		var n float64
		ok = json.Unmarshal(raw, &n) == nil
	case String:
		ok = json.Unmarshal(raw, &s) == nil
	case Strings:
		var l []string
		ok = json.Unmarshal(raw, &l) == nil
	case List:
		var l []json.RawMessage
		ok = json.Unmarshal(raw, &l) == nil
	case Object:
		ok = len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
	}
	if !ok {
		want := k.Kind.String()
		if len(k.Enum) > 0 && k.Kind != String {
			want += " or one of " + quoteList(k.Enum)
		}
		return "must be " + want
	}
	return k.check(raw)
}

func (k Key) check(raw json.RawMessage) string {
	if k.Check == nil {
		return ""
	}
	if err := k.Check(raw); err != nil {
		return err.Error()
	}
	return ""
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
