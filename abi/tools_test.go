package abi

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestToolCodecMatchesEncodingJSON(t *testing.T) {
	call := `{"toolCallId":"c1","toolName":"bash","source":"builtin","input":{"command":"rm -rf /","timeout":5},"cwd":"/w","extra":[1,{"x":null}]}`
	var fast, std ToolCallEvent
	if err := fast.DecodeJSON([]byte(call)); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(call), &std); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fast, std) {
		t.Fatalf("tool_call event:\nfast %+v\nstd  %+v", fast, std)
	}

	res := `{"toolCallId":"c2","toolName":"read","source":"builtin","input":{"path":"a"},"content":[{"type":"text","text":"AKIA\u0041 \"q\""},{"type":"image","data":"AAAA","mimeType":"image/png"}],"isError":true}`
	var fr, sr ToolResultEvent
	if err := fr.DecodeJSON([]byte(res)); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(res), &sr); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fr, sr) {
		t.Fatalf("tool_result event:\nfast %+v\nstd  %+v", fr, sr)
	}

	tev := `{"toolCallId":"c3","toolName":"glossary","input":{"term":"SLO"},"cwd":"/p"}`
	var ft, st ToolEvent
	if err := ft.DecodeJSON([]byte(tev)); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(tev), &st)
	if !reflect.DeepEqual(ft, st) {
		t.Fatalf("tool event:\nfast %+v\nstd  %+v", ft, st)
	}

	no := false
	for _, v := range []JSONAppender{
		ToolCallResult{Block: true, Reason: "no \"force\" pushes"},
		ToolCallResult{Input: json.RawMessage(`{"command":"ls"}`)},
		ToolCallResult{},
		ToolResultPatch{Content: []ContentPart{{Type: "text", Text: "x\n<redacted>"}}, IsError: &no},
		ToolResultPatch{},
		ToolResult{Content: []ContentPart{{Type: "text", Text: "SLO: a target"}}},
		ToolResult{IsError: true},
	} {
		got, err := v.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(v)
		// encoding/json writes a nil Content of ToolResult as null; the
		// codec always writes a list, which decodes the same.
		if !json.Valid(got) {
			t.Fatalf("%T: invalid JSON %s", v, got)
		}
		back := reflect.New(reflect.TypeOf(v))
		if err := json.Unmarshal(got, back.Interface()); err != nil {
			t.Fatalf("%T: %v", v, err)
		}
		again, _ := json.Marshal(back.Elem().Interface())
		if string(again) != string(want) && !strings.Contains(string(want), "null") {
			t.Errorf("%T:\ncodec %s\nstd   %s", v, got, want)
		}
	}
}

func TestToolCodecRejectsGarbage(t *testing.T) {
	for _, bad := range []string{``, `{"input":}`, `{"toolName":1}`, `{"input":{"a":1}} x`, `[`, `{"content":[{"type":}]}`} {
		var a ToolCallEvent
		var b ToolResultEvent
		if a.DecodeJSON([]byte(bad)) == nil && b.DecodeJSON([]byte(bad)) == nil && bad != `` {
			t.Errorf("%q decoded without error", bad)
		}
	}
}

func FuzzToolCodec(f *testing.F) {
	f.Add([]byte(`{"toolCallId":"c","toolName":"bash","input":{"command":"ls"},"content":[{"type":"text","text":"x"}]}`))
	f.Add([]byte(`{"messages":[{"role":"user"},null],"message":{},"toolResults":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c ToolCallEvent
		if c.DecodeJSON(data) == nil && len(c.Input) > 0 && !json.Valid(c.Input) {
			t.Fatalf("input %q is not JSON", c.Input)
		}
		var r ToolResultEvent
		if r.DecodeJSON(data) == nil {
			b, err := ToolResult{Content: r.Content, IsError: r.IsError}.AppendJSON(nil)
			if err != nil || !json.Valid(b) {
				t.Fatalf("re-encode: %s %v", b, err)
			}
		}
		var te TurnEndEvent
		_ = te.DecodeJSON(data)
		var ae AgentEndEvent
		_ = ae.DecodeJSON(data)
	})
}

func TestManifestTools(t *testing.T) {
	base := func() Manifest {
		return Manifest{Name: "g", ABI: Version, Tools: []ToolSpec{{
			Name: "glossary", Description: "Look up a term.",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"term": map[string]any{"type": "string"}}},
		}}}
	}
	if errs := (func() *Manifest { m := base(); return &m }()).Validate(); len(errs) > 0 {
		t.Fatalf("valid manifest: %v", errs)
	}
	cases := []struct {
		name  string
		edit  func(m *Manifest)
		field string
	}{
		{"bad name", func(m *Manifest) { m.Tools[0].Name = "Glossary" }, "tools[0].name"},
		{"dash in name", func(m *Manifest) { m.Tools[0].Name = "team-glossary" }, "tools[0].name"},
		{"twice", func(m *Manifest) { m.Tools = append(m.Tools, m.Tools[0]) }, "tools[1].name"},
		{"no description", func(m *Manifest) { m.Tools[0].Description = " " }, "tools[0].description"},
		{"mode", func(m *Manifest) { m.Tools[0].Mode = "serial" }, "tools[0].mode"},
		{"schema file path", func(m *Manifest) { m.Tools[0].Parameters = "../x.json" }, "tools[0].parameters"},
		{"schema file kind", func(m *Manifest) { m.Tools[0].Parameters = "x.yaml" }, "tools[0].parameters"},
		{"schema type", func(m *Manifest) { m.Tools[0].Parameters = map[string]any{"type": "string"} }, "tools[0].parameters"},
		{"schema list", func(m *Manifest) { m.Tools[0].Parameters = []any{1} }, "tools[0].parameters"},
		{"escape in snippet", func(m *Manifest) { m.Tools[0].Snippet = "look \x1b[2Kup" }, "tools[0].snippet"},
		{"empty guideline", func(m *Manifest) { m.Tools[0].Guidelines = []string{""} }, "tools[0].guidelines[0]"},
	}
	for _, c := range cases {
		m := base()
		c.edit(&m)
		errs := m.Validate()
		found := false
		for _, e := range errs {
			if fe, ok := e.(*FieldError); ok && fe.Field == c.field {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: want an error on %s, got %v", c.name, c.field, errs)
		}
	}
	m := base()
	m.Tools[0].Parameters = "glossary.schema.json"
	if errs := m.Validate(); len(errs) > 0 {
		t.Fatalf("schema file: %v", errs)
	}
	if f, ok := m.Tools[0].ParametersFile(); !ok || f != "glossary.schema.json" {
		t.Fatalf("ParametersFile = %q %v", f, ok)
	}
}

func TestLoopHookExports(t *testing.T) {
	for hook, export := range map[string]string{HookToolCall: ExportToolCall, HookToolResult: ExportToolResult, HookTurnEnd: ExportTurnEnd, HookAgentEnd: ExportAgentEnd} {
		if got := ExportFor(hook); got != export {
			t.Errorf("ExportFor(%s) = %q, want %q", hook, got, export)
		}
		m := Manifest{Name: "p", ABI: Version, Hooks: []string{hook}}
		if errs := m.Validate(); len(errs) > 0 {
			t.Errorf("%s: %v", hook, errs)
		}
	}
}

func TestStringField(t *testing.T) {
	raw := []byte(`{"a":{"command":"nested"},"n":1,"command":"ls \"x\"","path":5}`)
	if s, ok := StringField(raw, "command"); !ok || s != `ls "x"` {
		t.Errorf("command: %q %v", s, ok)
	}
	for _, k := range []string{"path", "missing", "n"} {
		if s, ok := StringField(raw, k); ok {
			t.Errorf("%s: want no string, got %q", k, s)
		}
	}
	if _, ok := StringField([]byte(`[1]`), "a"); ok {
		t.Error("not an object")
	}
}

// Strings with escapes all through them (command output: tabs, newlines,
// quotes, \u sequences) decode as encoding/json decodes them.
func TestCodecEscapedRuns(t *testing.T) {
	text := strings.Repeat("ok  \tgithub.com/x\t0.4s\n\"q\" \\ é \u2028 \x01", 200)
	raw, _ := json.Marshal(ToolResultEvent{ToolName: "bash", Content: []ContentPart{{Type: "text", Text: text}}})
	var fast ToolResultEvent
	if err := fast.DecodeJSON(raw); err != nil {
		t.Fatal(err)
	}
	if len(fast.Content) != 1 || fast.Content[0].Text != text {
		t.Fatalf("decoded text differs (%d bytes, want %d)", len(fast.Content[0].Text), len(text))
	}
	for _, bad := range []string{`{"content":[{"text":"a\tb` + "\x01" + `"}]}`, `{"content":[{"text":"a\\tb`} {
		if (&ToolResultEvent{}).DecodeJSON([]byte(bad)) == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}
