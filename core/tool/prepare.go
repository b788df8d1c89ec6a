package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// decodedSchema is a tool's parameter schema decoded on first use. The
// validator only reads it, so concurrent calls share it.
type decodedSchema struct {
	raw  json.RawMessage // the bytes it decodes: a copy of the tool with other Parameters decodes its own
	once sync.Once
	v    any
	err  error
}

// decodedParameters is Parameters decoded: from the tool's shared memo when
// it was made for these very bytes, else decoded now.
func (t Tool) decodedParameters() (any, error) {
	if d := t.schema; d != nil && len(d.raw) == len(t.Parameters) && (len(d.raw) == 0 || &d.raw[0] == &t.Parameters[0]) {
		d.once.Do(func() { d.err = json.Unmarshal(d.raw, &d.v) })
		return d.v, d.err
	}
	var v any
	err := json.Unmarshal(t.Parameters, &v)
	return v, err
}

// Prepare turns a call's raw JSON arguments into the arguments the tool runs
// with: legacy shapes folded by Fold, then checked against Parameters with
// the light coercion models need ("42" for a number, "true" for a boolean, a
// JSON-encoded string where an array or object belongs, a single value where
// an array belongs, null for an optional property). The error lists every
// problem by field, with what was expected and what arrived, then the
// arguments as received, so the model can correct its call.
//
// The schema support is the subset tool schemas use: type (one or a list),
// properties, required, additionalProperties, items, enum, const,
// anyOf/oneOf, numeric and length bounds, and local $ref.
func (t Tool) Prepare(raw json.RawMessage) (map[string]any, error) {
	var v any
	if len(bytes.TrimSpace(raw)) == 0 {
		v = map[string]any{}
	} else if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("arguments for tool %q are not valid JSON: %v", t.Name, err)
	}
	if v == nil {
		v = map[string]any{}
	}
	args, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments for tool %q must be a JSON object, got %s", t.Name, kindOf(v))
	}
	if t.Fold != nil {
		args = t.Fold(args)
		if args == nil {
			args = map[string]any{}
		}
	}
	if len(bytes.TrimSpace(t.Parameters)) == 0 {
		return args, nil
	}
	schema, err := t.decodedParameters()
	if err != nil {
		return nil, fmt.Errorf("tool %q has an invalid parameter schema: %v", t.Name, err)
	}
	vd := validator{root: schema}
	out := vd.check(schema, args, "", 0)
	if len(vd.errs) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "Invalid arguments for tool %q:\n", t.Name)
		for _, e := range vd.errs {
			fmt.Fprintf(&b, "  - %s\n", e)
		}
		shown, _ := json.MarshalIndent(args, "", "  ")
		fmt.Fprintf(&b, "\nReceived arguments:\n%s", shown)
		return nil, &ArgError{Tool: t.Name, Problems: vd.errs, msg: b.String()}
	}
	m, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("arguments for tool %q must be a JSON object", t.Name)
	}
	return m, nil
}

// ArgError is a failed validation; Problems holds one line per problem.
type ArgError struct {
	Tool     string
	Problems []string
	msg      string
}

func (e *ArgError) Error() string { return e.msg }

// maxDepth bounds recursion through $ref cycles and deep values.
const maxDepth = 64

type validator struct {
	root any
	errs []string
}

func (vd *validator) fail(path, format string, a ...any) {
	if path == "" {
		path = "root"
	}
	if len(vd.errs) < 20 {
		vd.errs = append(vd.errs, path+": "+fmt.Sprintf(format, a...))
	}
}

// check validates v against s and returns v with coercions applied.
func (vd *validator) check(s any, v any, path string, depth int) any {
	if depth > maxDepth {
		vd.fail(path, "value nested too deeply")
		return v
	}
	sm, ok := s.(map[string]any)
	if !ok {
		if b, isBool := s.(bool); isBool && !b {
			vd.fail(path, "no value is allowed here")
		}
		return v
	}
	if ref, ok := sm["$ref"].(string); ok {
		target, err := vd.resolve(ref)
		if err != nil {
			vd.fail(path, "%v", err)
			return v
		}
		return vd.check(target, v, path, depth+1)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := sm[key].([]any); ok && len(alts) > 0 {
			v = vd.checkAlternatives(alts, v, path, depth)
		}
	}
	if all, ok := sm["allOf"].([]any); ok {
		for _, a := range all {
			v = vd.check(a, v, path, depth+1)
		}
	}

	if types := schemaTypes(sm); len(types) > 0 {
		var matched bool
		v, matched = coerce(v, types, sm)
		if !matched {
			vd.fail(path, "must be %s, got %s", strings.Join(types, " or "), describe(v))
			return v
		}
	}
	if c, ok := sm["const"]; ok && !jsonEqual(c, v) {
		vd.fail(path, "must be %s", compact(c))
	}
	if enum, ok := sm["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if jsonEqual(e, v) {
				found = true
				break
			}
		}
		if !found {
			var opts []string
			for _, e := range enum {
				opts = append(opts, compact(e))
			}
			vd.fail(path, "must be one of %s, got %s", strings.Join(opts, ", "), compact(v))
		}
	}
	switch x := v.(type) {
	case string:
		n := len([]rune(x))
		if mn, ok := num(sm["minLength"]); ok && float64(n) < mn {
			vd.fail(path, "must be at least %v characters long", mn)
		}
		if mx, ok := num(sm["maxLength"]); ok && float64(n) > mx {
			vd.fail(path, "must be at most %v characters long", mx)
		}
	case float64:
		if mn, ok := num(sm["minimum"]); ok && x < mn {
			vd.fail(path, "must be at least %v, got %v", mn, x)
		}
		if mx, ok := num(sm["maximum"]); ok && x > mx {
			vd.fail(path, "must be at most %v, got %v", mx, x)
		}
	case []any:
		if mn, ok := num(sm["minItems"]); ok && float64(len(x)) < mn {
			vd.fail(path, "must have at least %v item(s), got %d", mn, len(x))
		}
		if mx, ok := num(sm["maxItems"]); ok && float64(len(x)) > mx {
			vd.fail(path, "must have at most %v item(s), got %d", mx, len(x))
		}
		if items, ok := sm["items"]; ok {
			for i := range x {
				x[i] = vd.check(items, x[i], join(path, strconv.Itoa(i)), depth+1)
			}
		}
	case map[string]any:
		v = vd.checkObject(sm, x, path, depth)
	}
	return v
}

func (vd *validator) checkObject(sm map[string]any, x map[string]any, path string, depth int) any {
	props, _ := sm["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := sm["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	// Models send null for an optional property they mean to leave out.
	for k, val := range x {
		if val == nil && !required[k] {
			if ps, ok := props[k]; ok && !allowsNull(ps) {
				delete(x, k)
			}
		}
	}
	for _, name := range sortedKeys(required) {
		if _, ok := x[name]; !ok {
			vd.fail(join(path, name), "required property is missing")
		}
	}
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if ps, ok := props[k]; ok {
			x[k] = vd.check(ps, x[k], join(path, k), depth+1)
			continue
		}
		switch ap := sm["additionalProperties"].(type) {
		case bool:
			if !ap {
				vd.fail(join(path, k), "unknown property (expected one of: %s)", strings.Join(propNames(props), ", "))
			}
		case map[string]any:
			x[k] = vd.check(ap, x[k], join(path, k), depth+1)
		}
	}
	return x
}

// checkAlternatives keeps the first alternative the value satisfies (with
// coercion); when none does, the first alternative's problems are reported.
func (vd *validator) checkAlternatives(alts []any, v any, path string, depth int) any {
	var firstErrs []string
	for i, a := range alts {
		trial := validator{root: vd.root}
		out := trial.check(a, deepCopy(v), path, depth+1)
		if len(trial.errs) == 0 {
			return out
		}
		if i == 0 {
			firstErrs = trial.errs
		}
	}
	if len(firstErrs) > 0 {
		vd.fail(path, "matches none of the allowed shapes (first: %s)", strings.Join(firstErrs, "; "))
	}
	return v
}

func (vd *validator) resolve(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("schema reference %q is not local", ref)
	}
	cur := vd.root
	for _, seg := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
		if seg == "" {
			continue
		}
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("schema reference %q names nothing", ref)
		}
		if cur, ok = m[seg]; !ok {
			return nil, fmt.Errorf("schema reference %q names nothing", ref)
		}
	}
	return cur, nil
}

func schemaTypes(sm map[string]any) []string {
	switch t := sm["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func allowsNull(s any) bool {
	sm, ok := s.(map[string]any)
	if !ok {
		return true
	}
	for _, t := range schemaTypes(sm) {
		if t == "null" {
			return true
		}
	}
	return len(schemaTypes(sm)) == 0 && sm["anyOf"] != nil
}

// coerce returns v as one of types when it is, or can lightly be made, one.
// Exact matches win over conversions.
func coerce(v any, types []string, sm map[string]any) (any, bool) {
	for _, t := range types {
		if isType(v, t) {
			return v, true
		}
	}
	for _, t := range types {
		if c, ok := convert(v, t, sm); ok {
			return c, true
		}
	}
	return v, false
}

func isType(v any, t string) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "null":
		return v == nil
	}
	return true // unknown type names are not ours to reject
}

func convert(v any, t string, sm map[string]any) (any, bool) {
	switch t {
	case "number", "integer":
		var f float64
		switch x := v.(type) {
		case string:
			p, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
				return v, false
			}
			f = p
		case bool:
			if x {
				f = 1
			}
		default:
			return v, false
		}
		if t == "integer" && f != math.Trunc(f) {
			return v, false
		}
		return f, true
	case "boolean":
		switch x := v.(type) {
		case string:
			switch strings.TrimSpace(x) {
			case "true":
				return true, true
			case "false":
				return false, true
			}
		case float64:
			if x == 0 || x == 1 {
				return x == 1, true
			}
		}
	case "string":
		switch x := v.(type) {
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), true
		case bool:
			return strconv.FormatBool(x), true
		}
	case "array":
		if s, ok := v.(string); ok {
			var a []any
			if json.Unmarshal([]byte(s), &a) == nil && a != nil {
				return a, true
			}
		}
		// A single value where a list belongs: wrap it, when it fits the items.
		if v != nil {
			if _, isArr := v.([]any); !isArr {
				if items, ok := sm["items"]; ok {
					probe := validator{root: items}
					probe.check(items, deepCopy(v), "", 0)
					if len(probe.errs) == 0 {
						return []any{v}, true
					}
				} else {
					return []any{v}, true
				}
			}
		}
	case "object":
		if s, ok := v.(string); ok {
			var m map[string]any
			if json.Unmarshal([]byte(s), &m) == nil && m != nil {
				return m, true
			}
		}
	case "null":
		if s, ok := v.(string); ok && s == "null" {
			return nil, true
		}
	}
	return v, false
}

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}

func join(path, seg string) string {
	if path == "" {
		return seg
	}
	return path + "." + seg
}

func propNames(props map[string]any) []string {
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func describe(v any) string {
	s := compact(v)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return kindOf(v) + " (" + s + ")"
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func jsonEqual(a, b any) bool { return compact(a) == compact(b) }

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}
