package theme

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Theme is one parsed theme: every role's colour (optional roles filled
// from their fallbacks), the appearance it is made for, and the HTML
// export's backgrounds.
type Theme struct {
	// Name identifies the theme in settings and /settings.
	Name string
	// Appearance is "dark" or "light": declared by the file, or detected
	// from the lightness of its colours; "" when neither tells (the
	// terminal's appearance then applies).
	Appearance string
	// Path is the file the theme came from; "" for a built-in theme.
	Path string

	colors [len(tokens)]Color
	export [3]*Color // pageBg, cardBg, infoBg when the file sets them
}

// Color returns the colour of a role (see Roles); an unknown role gives
// the terminal default.
func (t *Theme) Color(role string) Color {
	for i, tk := range tokens {
		if tk.name == role {
			return t.colors[i]
		}
	}
	return Color{}
}

// maxFileBytes bounds a theme file: the largest sensible one is a few KiB.
const maxFileBytes = 1 << 20

var topLevel = map[string]bool{"$schema": true, "name": true, "appearance": true, "vars": true, "colors": true, "export": true}

var exportKeys = [3]string{"pageBg", "cardBg", "infoBg"}

// Parse reads a theme file's contents. The format is the established
// harness's: a strict JSON object with "name" and "colors" (every
// required role), optional "$schema", "appearance", "vars" and "export".
// The error lists every problem found, for a diagnostic naming the file.
func Parse(data []byte) (*Theme, error) {
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("the file is %d bytes; a theme is at most %d", len(data), maxFileBytes)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(data, err)
	}
	if top == nil {
		return nil, errors.New("a theme is a JSON object with \"name\" and \"colors\"")
	}
	var p problems
	for _, k := range sortedKeys(top) {
		if !topLevel[k] {
			p.add("unknown field %q (custom colours go under \"vars\")", k)
		}
	}
	t := &Theme{}
	if raw, ok := top["$schema"]; ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			p.add("$schema: must be text")
		}
	}
	switch raw, ok := top["name"]; {
	case !ok:
		p.add("name: missing")
	case json.Unmarshal(raw, &t.Name) != nil:
		p.add("name: must be text")
	case t.Name == "":
		p.add("name: must not be empty")
	case strings.Contains(t.Name, "/"):
		p.add("name %q: must not contain \"/\", which the theme setting uses for a light/dark pair", t.Name)
	}
	if raw, ok := top["appearance"]; ok {
		if json.Unmarshal(raw, &t.Appearance) != nil || (t.Appearance != "dark" && t.Appearance != "light") {
			p.add("appearance: must be \"dark\" or \"light\"")
			t.Appearance = ""
		}
	}
	vars := map[string]value{}
	if raw, ok := top["vars"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			p.add("vars: must be an object of colours")
		}
		for _, k := range sortedKeys(m) {
			v, err := readValue(m[k])
			if err != nil {
				p.add("vars.%s: %v", k, err)
				continue
			}
			vars[k] = v
		}
	}
	r := resolver{vars: vars}
	var given [len(tokens)]bool
	raw, ok := top["colors"]
	var colors map[string]json.RawMessage
	switch {
	case !ok:
		p.add("colors: missing")
	case json.Unmarshal(raw, &colors) != nil || colors == nil:
		p.add("colors: must be an object of colours")
	}
	for _, k := range sortedKeys(colors) {
		i := tokenIndex(k)
		if i < 0 {
			p.add("colors.%s: not a colour role of the theme format", k)
			continue
		}
		c, err := r.color(colors[k])
		if err != nil {
			p.add("colors.%s: %v", k, err)
			continue
		}
		t.colors[i], given[i] = c, true
	}
	if colors != nil {
		var missing []string
		for _, tk := range tokens {
			if _, ok := colors[tk.name]; !ok && tk.fallback == "" {
				missing = append(missing, tk.name)
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			p.add("colors: missing %s", strings.Join(missing, ", "))
		}
	}
	if raw, ok := top["export"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			p.add("export: must be an object with pageBg, cardBg, infoBg")
		}
		for _, k := range sortedKeys(m) {
			j := -1
			for n, e := range exportKeys {
				if e == k {
					j = n
				}
			}
			if j < 0 {
				p.add("export.%s: unknown (export takes pageBg, cardBg and infoBg)", k)
				continue
			}
			c, err := r.color(m[k])
			if err != nil {
				p.add("export.%s: %v", k, err)
				continue
			}
			if !c.IsDefault() {
				t.export[j] = &c
			}
		}
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	for i, tk := range tokens {
		if !given[i] && tk.fallback != "" {
			t.colors[i] = t.colors[tokenIndex(tk.fallback)]
		}
	}
	if t.Appearance == "" {
		t.Appearance = t.detectAppearance()
	}
	return t, nil
}

func tokenIndex(name string) int {
	for i, tk := range tokens {
		if tk.name == name {
			return i
		}
	}
	return -1
}

// value is a colour as written: text (a colour or a variable's name) or a
// palette index.
type value struct {
	text  string
	index int
	isNum bool
}

func readValue(raw json.RawMessage) (value, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return value{text: s}, nil
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&n) == nil {
		i, err := strconv.Atoi(n.String())
		if err != nil || i < 0 || i > 255 {
			return value{}, fmt.Errorf("%s: a palette index is a whole number from 0 to 255", n)
		}
		return value{index: i, isNum: true}, nil
	}
	return value{}, fmt.Errorf("%s: want a colour as text or a palette index 0-255", bytes.TrimSpace(raw))
}

type resolver struct{ vars map[string]value }

// color resolves a value through the variables it names (chains allowed,
// cycles and missing names refused) to a colour.
func (r resolver) color(raw json.RawMessage) (Color, error) {
	v, err := readValue(raw)
	if err != nil {
		return Color{}, err
	}
	var chain []string
	for !v.isNum && !isLiteral(v.text) {
		for i, name := range chain {
			if name == v.text {
				return Color{}, fmt.Errorf("circular variable reference %s", strings.Join(append(chain[i:], v.text), " → "))
			}
		}
		chain = append(chain, v.text)
		next, ok := r.vars[v.text]
		if !ok {
			if len(chain) > 1 {
				return Color{}, fmt.Errorf("variable %q (through %s) is not defined in vars", v.text, strings.Join(chain[:len(chain)-1], " → "))
			}
			return Color{}, fmt.Errorf("variable %q is not defined in vars", v.text)
		}
		v = next
	}
	if v.isNum {
		return Index(uint8(v.index)), nil
	}
	return parseLiteral(v.text)
}

// detectAppearance guesses the background a theme is made for from the
// lightness of its own colours, as the established harness does: palette
// colours 0-15 are the user's and say nothing, so they are left out.
func (t *Theme) detectAppearance() string {
	avg := func(s slot) (float64, bool) {
		var sum float64
		var n int
		for i, tk := range tokens {
			c := t.colors[i]
			if tk.slot != s || c.IsDefault() {
				continue
			}
			if idx, ok := c.PaletteIndex(); ok && idx < 16 {
				continue
			}
			l, _, _ := Lab(c.Channels())
			sum += l
			n++
		}
		return sum / float64(max(n, 1)), n > 0
	}
	fgL, fgOK := avg(fg)
	bgL, bgOK := avg(bg)
	switch {
	case fgOK && bgOK:
		if bgL < fgL {
			return "dark"
		}
		return "light"
	case bgOK:
		if bgL < 0.5 {
			return "dark"
		}
		return "light"
	case fgOK:
		if fgL > 0.5 {
			return "dark"
		}
		return "light"
	}
	return ""
}

// problems collects what is wrong with a file, to report all at once.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return errors.New(strings.Join(p, "; "))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// jsonError says where the JSON went wrong, by line.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		return fmt.Errorf("not valid JSON (line %d: %v)", line, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return errors.New("a theme is a JSON object with \"name\" and \"colors\"")
	}
	return fmt.Errorf("not valid JSON: %v", err)
}
