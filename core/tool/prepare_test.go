package tool

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const editLike = `{"type":"object","required":["path","edits"],"properties":{"path":{"type":"string"},"n":{"type":"number"},"i":{"type":"integer"},"b":{"type":"boolean"},"edits":{"type":"array","items":{"type":"object","required":["oldText","newText"],"properties":{"oldText":{"type":"string"},"newText":{"type":"string"}}}},"o":{"type":"object","properties":{"k":{"type":"string"}},"additionalProperties":false},"e":{"type":"string","enum":["a","b"]},"u":{"anyOf":[{"type":"number"},{"type":"array","items":{"type":"string"}}]},"nul":{"type":["string","null"]},"r":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"integer","minimum":1}}}`

func TestPrepare(t *testing.T) {
	tl := Tool{Name: "t", Parameters: json.RawMessage(editLike)}
	ok := `"path":"p","edits":[]`
	cases := []struct {
		name, in string
		want     map[string]any // nil: an error is expected
		errHas   []string
	}{
		{"plain", `{` + ok + `}`, map[string]any{"path": "p", "edits": []any{}}, nil},
		{"number from string", `{` + ok + `,"n":" 42 "}`, map[string]any{"path": "p", "edits": []any{}, "n": 42.0}, nil},
		{"integer from string", `{` + ok + `,"i":"7"}`, map[string]any{"path": "p", "edits": []any{}, "i": 7.0}, nil},
		{"integer refuses fraction", `{` + ok + `,"i":"7.5"}`, nil, []string{"i: must be integer", `"7.5"`}},
		{"bool from string", `{` + ok + `,"b":"true"}`, map[string]any{"path": "p", "edits": []any{}, "b": true}, nil},
		{"bool refuses word", `{` + ok + `,"b":"yes"}`, nil, []string{"b: must be boolean, got a string"}},
		{"string from number", `{"path":12,"edits":[]}`, map[string]any{"path": "12", "edits": []any{}}, nil},
		{"array from JSON string", `{"path":"p","edits":"[{\"oldText\":\"a\",\"newText\":\"b\"}]"}`,
			map[string]any{"path": "p", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}}, nil},
		{"single object wrapped", `{"path":"p","edits":{"oldText":"a","newText":"b"}}`,
			map[string]any{"path": "p", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}}, nil},
		{"object from JSON string", `{` + ok + `,"o":"{\"k\":\"v\"}"}`, map[string]any{"path": "p", "edits": []any{}, "o": map[string]any{"k": "v"}}, nil},
		{"optional null dropped", `{` + ok + `,"n":null}`, map[string]any{"path": "p", "edits": []any{}}, nil},
		{"nullable null kept", `{` + ok + `,"nul":null}`, map[string]any{"path": "p", "edits": []any{}, "nul": nil}, nil},
		{"missing required", `{"edits":[]}`, nil, []string{"path: required property is missing"}},
		{"nested field named", `{"path":"p","edits":[{"oldText":"a"}]}`, nil, []string{"edits.0.newText: required property is missing"}},
		{"nested type named", `{"path":"p","edits":[{"oldText":"a","newText":{}}]}`, nil, []string{"edits.0.newText: must be string, got an object"}},
		{"unknown property refused", `{` + ok + `,"o":{"z":1}}`, nil, []string{"o.z: unknown property (expected one of: k)"}},
		{"enum", `{` + ok + `,"e":"c"}`, nil, []string{`e: must be one of "a", "b", got "c"`}},
		{"anyOf first fits", `{` + ok + `,"u":"3"}`, map[string]any{"path": "p", "edits": []any{}, "u": 3.0}, nil},
		{"ref minimum", `{` + ok + `,"r":0}`, nil, []string{"r: must be at least 1, got 0"}},
		{"ref ok", `{` + ok + `,"r":"2"}`, map[string]any{"path": "p", "edits": []any{}, "r": 2.0}, nil},
		{"empty args", ``, nil, []string{"path: required property is missing", "edits: required property is missing"}},
		{"not an object", `[1]`, nil, []string{`must be a JSON object, got an array`}},
		{"not JSON", `{"path":`, nil, []string{"not valid JSON"}},
		{"several problems listed", `{"path":[],"edits":5}`, nil, []string{"edits: must be array, got a number", "path: must be string, got an array", "Received arguments:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := tl.Prepare(json.RawMessage(c.in))
			if c.want == nil {
				if err == nil {
					t.Fatalf("want an error, got %v", got)
				}
				for _, h := range c.errHas {
					if !strings.Contains(err.Error(), h) {
						t.Errorf("error %q lacks %q", err, h)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %#v\nwant %#v", got, c.want)
			}
		})
	}
}

func TestPrepareFoldRunsFirst(t *testing.T) {
	tl := Tool{Name: "t", Parameters: json.RawMessage(`{"type":"object","required":["x"],"properties":{"x":{"type":"string"}}}`),
		Fold: func(m map[string]any) map[string]any {
			if v, ok := m["legacy"]; ok {
				m["x"] = v
				delete(m, "legacy")
			}
			return m
		}}
	got, err := tl.Prepare(json.RawMessage(`{"legacy":"v"}`))
	if err != nil || got["x"] != "v" {
		t.Fatalf("%v %v", got, err)
	}
}

func TestPrepareNoSchema(t *testing.T) {
	got, err := Tool{Name: "t"}.Prepare(json.RawMessage(`{"a":1}`))
	if err != nil || got["a"] != 1.0 {
		t.Fatalf("%v %v", got, err)
	}
}

func TestPrepareErrorNamesTool(t *testing.T) {
	_, err := Tool{Name: "grep", Parameters: json.RawMessage(`{"type":"object","required":["pattern"],"properties":{"pattern":{"type":"string"}}}`)}.Prepare(nil)
	var ae *ArgError
	if err == nil || !strings.Contains(err.Error(), `tool "grep"`) {
		t.Fatalf("%v", err)
	}
	if !asArgError(err, &ae) || len(ae.Problems) != 1 {
		t.Fatalf("want one problem, got %#v", err)
	}
}

func asArgError(err error, target **ArgError) bool {
	ae, ok := err.(*ArgError)
	*target = ae
	return ok
}

// A registered tool's schema is decoded once, not on every call: Prepare on
// the registry's copy allocates for the arguments only. A copy whose
// Parameters were replaced decodes its own.
func TestPrepareDecodesSchemaOnce(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"Path to the file to read (relative or absolute)"},"offset":{"type":"number","description":"Line number to start reading from (1-indexed)"},"limit":{"type":"number","description":"Maximum number of lines to read"}},"required":["path"],"additionalProperties":false}`)
	tl := Tool{Name: "read", Parameters: schema, Run: func(context.Context, Call, Update) (Result, error) { return Result{}, nil }}
	reg := NewRegistry()
	if err := reg.Add(tl); err != nil {
		t.Fatal(err)
	}
	got, _ := reg.Get("read")
	args := json.RawMessage(`{"path":"f01.txt"}`)
	prepare := func(tl Tool) func() {
		return func() {
			if _, err := tl.Prepare(args); err != nil {
				t.Fatal(err)
			}
		}
	}
	registered, fresh := testing.AllocsPerRun(50, prepare(got)), testing.AllocsPerRun(50, prepare(tl))
	if registered*2 > fresh {
		t.Errorf("Prepare on a registered tool: %v allocations, on an unregistered one %v: the schema was decoded again", registered, fresh)
	}
	changed := got
	changed.Parameters = json.RawMessage(`{"type":"object","properties":{"path":{"type":"number"}}}`)
	if _, err := changed.Prepare(args); err == nil {
		t.Error("a copy with other Parameters was checked against the registered schema")
	}
}
