package abi

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// The fast codec must agree with encoding/json on every payload.

func sampleEvents(s string, f float64, flag bool) []any {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	v := s
	return []any{
		&InputEvent{Text: s},
		&CommandEvent{Name: s, Args: s + " x", Cwd: "/c"},
		&BeforeAgentStartEvent{Input: s, SystemPrompt: s, SystemPromptBytes: len(s), Options: Options{
			CustomPrompt: s, Tools: []string{s, "read"}, Guidelines: []string{}, Cwd: s,
			Sections:     []SectionInfo{{Name: "a", Order: f, Source: s, Bytes: 3}},
			ContextFiles: []string{s}, Skills: nil,
		}},
		&AssembleEvent{
			Sections:  []Section{{Name: s, Order: f, Text: s, Interpolate: flag, Complete: !flag, Source: "x"}, {}},
			Contexts:  []Context{{Name: "c", Order: -f, Text: s}},
			Tools:     []string{s},
			Variables: []Variable{{Name: "v", Value: &v}, {Name: "w"}},
		},
	}
}

type decodable interface{ DecodeJSON([]byte) error }

func checkRoundTrip(t *testing.T, ev any) {
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	fresh := reflect.New(reflect.TypeOf(ev).Elem()).Interface()
	if err := fresh.(decodable).DecodeJSON(b); err != nil {
		t.Fatalf("fast decode of %s: %v", b, err)
	}
	want := reflect.New(reflect.TypeOf(ev).Elem()).Interface()
	if err := json.Unmarshal(b, want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fresh, want) {
		t.Fatalf("decode mismatch for %s:\nfast %#v\njson %#v", b, fresh, want)
	}
}

func sampleResults(s string, f float64, flag bool) []JSONAppender {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 1e300
	}
	return []JSONAppender{
		BeforeAgentStartResult{Ops: []Op{{Op: OpSetSection, Name: s, Text: s, Order: &f, Interpolate: flag, Complete: flag}, {Op: OpSetVariable, Name: "v", Value: &s}, {Op: OpSetTools, Tools: []string{s}}}, Message: s, ForcePrompt: &s},
		BeforeAgentStartResult{},
		AssembleResult{Ops: []Op{{Op: OpSuppressContexts}}},
		InputResult{Action: ActionTransform, Text: s},
		CommandResult{Send: s, Show: s},
		CommandList{{Name: s, Description: s, ArgumentHint: s}},
	}
}

func checkAppend(t *testing.T, r JSONAppender) {
	b, err := AppendResult(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	ptr := reflect.New(reflect.TypeOf(r))
	if err := DecodeEnvelope(b, ptr.Interface()); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	want, _ := json.Marshal(r)
	got, _ := json.Marshal(ptr.Elem().Interface())
	if string(want) != string(got) {
		t.Fatalf("append mismatch:\nfast %s\njson %s\nwire %s", got, want, b)
	}
}

func TestCodec(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n tab\t \x01 \u2028 <&> é 🎉", "\xff\xfe bad utf8"} {
		for _, f := range []float64{0, 250, -1.5, 1e-7, 1e21, 123456789.125} {
			for _, ev := range sampleEvents(s, f, f > 0) {
				checkRoundTrip(t, ev)
			}
			for _, r := range sampleResults(s, f, f > 0) {
				checkAppend(t, r)
			}
		}
	}
	// Escapes the host's encoder may produce.
	var ev InputEvent
	if err := ev.DecodeJSON([]byte(`{"text":"a\u003cb\ud83c\udf89\/\ud800x","other":[1,{"x":null}],"TEXT":1}`)); err != nil || ev.Text != "a<b🎉/\uFFFDx" {
		t.Fatalf("%q %v", ev.Text, err)
	}
	for _, bad := range []string{``, `{`, `{"text":1}`, `{"text":"a"`, `{"text":"a"} x`, `[]`, `{"text":"\x01"}`, `{"text":"\q"}`} {
		var ev InputEvent
		if err := ev.DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("%q: want error", bad)
		}
	}
	nan := math.NaN()
	if _, err := AppendResult(nil, AssembleResult{Ops: []Op{{Op: OpSetSection, Name: "a", Order: &nan}}}); err == nil {
		t.Fatal("NaN order encoded")
	}
}

func FuzzCodec(f *testing.F) {
	f.Add("text", 250.0, true, []byte(`{"sections":[{"name":"a","text":"b"}]}`))
	f.Add("\u2028\x00\"", -1e-9, false, []byte(`{"input":"x","options":{"tools":null}}`))
	f.Fuzz(func(t *testing.T, s string, num float64, flag bool, raw []byte) {
		for _, ev := range sampleEvents(s, num, flag) {
			checkRoundTrip(t, ev)
		}
		for _, r := range sampleResults(s, num, flag) {
			checkAppend(t, r)
		}
		// Arbitrary input never panics, and whatever the fast decoder
		// accepts, encoding/json accepts too.
		for _, ev := range []decodable{&InputEvent{}, &CommandEvent{}, &BeforeAgentStartEvent{}, &AssembleEvent{}} {
			if ev.DecodeJSON(raw) == nil && utf8.Valid(raw) {
				if err := json.Unmarshal(raw, reflect.New(reflect.TypeOf(ev).Elem()).Interface()); err != nil {
					t.Fatalf("fast accepted %q, encoding/json: %v", raw, err)
				}
			}
		}
	})
}

func TestCodecEscapedKeys(t *testing.T) {
	var ev InputEvent
	if err := ev.DecodeJSON([]byte(`{"te\u0078t":"x"}`)); err != nil || ev.Text != "x" {
		t.Fatalf("%q %v", ev.Text, err)
	}
	if err := ev.DecodeJSON([]byte(`{"\q":"x"}`)); err == nil {
		t.Fatal("bad escape in key accepted")
	}
}
