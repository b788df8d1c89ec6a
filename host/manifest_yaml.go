package host

import (
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// unknownKeys walks a decoded YAML document against the Go type it will be
// decoded into and reports every mapping key the type does not have, with
// its line and the closest valid key. It replaces yaml.v3's KnownFields
// errors, which name Go types ("field x not found in type abi.Manifest").
func unknownKeys(n *yaml.Node, t reflect.Type, where string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.DocumentNode {
		var out []string
		for _, c := range n.Content {
			out = append(out, unknownKeys(c, t, where)...)
		}
		return out
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return unknownKeys(n.Alias, t, where)
	}
	var out []string
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil // the decoder reports the type mismatch
		}
		fields := map[string]reflect.Type{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			fields[name] = f.Type
			names = append(names, name)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				msg := fmt.Sprintf("line %d: unknown key %q", k.Line, k.Value)
				if where != "" {
					msg += " under " + where
				}
				if s := closest(k.Value, names); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				} else {
					msg += " (valid keys: " + strings.Join(names, ", ") + ")"
				}
				out = append(out, msg)
				continue
			}
			child := k.Value
			if where != "" {
				child = where + "." + k.Value
			}
			out = append(out, unknownKeys(v, ft, child)...)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, c := range n.Content {
			out = append(out, unknownKeys(c, t.Elem(), fmt.Sprintf("%s[%d]", where, i))...)
		}
	}
	return out
}

// closest returns the candidate nearest to s by edit distance (ignoring
// case), if it is near enough to be a likely typo.
func closest(s string, candidates []string) string {
	best, bestD := "", len(s)/2+2
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

var yamlTypeErr = lazyre.New("^line (\\d+): cannot unmarshal !!(\\w+)(?: `([^`]*)`)? into (\\S+)$")

// yamlTypeErrors rewrites yaml.v3's type errors without Go type names:
// "line 3: cannot unmarshal !!str `x` into int" becomes "line 3: expected
// a number, found text "x"".
func yamlTypeErrors(te *yaml.TypeError) []string {
	var out []string
	for _, e := range te.Errors {
		m := yamlTypeErr().FindStringSubmatch(e)
		if m == nil {
			out = append(out, e)
			continue
		}
		found := map[string]string{"str": "text", "int": "a number", "float": "a number", "bool": "true or false",
			"seq": "a list", "map": "a mapping", "null": "nothing"}[m[2]]
		if found == "" {
			found = m[2]
		}
		if m[3] != "" {
			found += " " + strconv.Quote(m[3])
		}
		out = append(out, fmt.Sprintf("line %s: expected %s, found %s", m[1], goTypeWords(m[4]), found))
	}
	return out
}

func goTypeWords(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["), strings.Contains(t, "."):
		return "a mapping"
	case t == "string":
		return "text"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	}
	return t
}
