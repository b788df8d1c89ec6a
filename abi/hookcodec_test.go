package abi

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// The hooks that used to be decoded with encoding/json: the fast codec
// must agree with it on every payload (see codec_test.go).

func sampleHookEvents(s string, n int, flag bool) []any {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	msg := json.RawMessage(`{"role":"user","content":` + strings.TrimSpace(string(mustJSON(s))) + `}`)
	return []any{
		&SessionStartEvent{Reason: s, PreviousSessionFile: s + "/p", SessionFile: "/f"},
		&SessionShutdownEvent{Reason: SessionReasonQuit, TargetSessionFile: s},
		&SessionBeforeSwitchEvent{Reason: s, SessionFile: s},
		&SessionBeforeForkEvent{EntryID: s, Position: ForkAt, SessionFile: s},
		&CommandCompleteEvent{Name: s, Prefix: s + " "},
		&ContextEvent{Messages: []json.RawMessage{msg, json.RawMessage(`null`), json.RawMessage(`[1,2.5,{"a":[]}]`)}},
		&ContextEvent{Messages: []json.RawMessage{}},
		&ContextEvent{},
		&BeforeProviderRequestEvent{Provider: s, API: "openai-completions", Model: s, Body: json.RawMessage(`{"model":"m","messages":[` + string(msg) + `],"n":` + itoa(n) + `}`)},
		&BeforeProviderRequestEvent{Body: json.RawMessage(`null`)},
		&SessionBeforeCompactEvent{
			Preparation: CompactPreparation{
				FirstKeptEntryID: s, MessagesToSummarize: []json.RawMessage{msg}, TurnPrefixMessages: []json.RawMessage{},
				IsSplitTurn: flag, TokensBefore: n, PreviousSummary: &s, ReadFiles: []string{s}, ModifiedFiles: nil,
			},
			CustomInstructions: s, Reason: "threshold", WillRetry: !flag,
		},
		&SessionBeforeCompactEvent{},
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func itoa(n int) string { return string(mustJSON(n)) }

func sampleHookResults(s string, n int, flag bool) []JSONAppender {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	msg := json.RawMessage("{ \"role\" : \"user\",\n \"content\": " + string(mustJSON(s)) + " }")
	return []JSONAppender{
		SessionCancelResult{Cancel: flag},
		SessionBeforeForkResult{Cancel: flag, SkipConversationRestore: !flag},
		SessionBeforeCompactResult{Cancel: flag},
		SessionBeforeCompactResult{Compaction: &CompactionSummary{Summary: s, FirstKeptEntryID: s, TokensBefore: n}},
		SessionBeforeCompactResult{Compaction: &CompactionSummary{}},
		CommandCompleteResult{Items: []CompletionItem{{Value: s, Label: s, Description: s}, {Value: ""}}},
		CommandCompleteResult{Items: []CompletionItem{}},
		ContextResult{Messages: []json.RawMessage{msg, nil, json.RawMessage(" 1 ")}},
		ContextResult{Messages: []json.RawMessage{}},
		BeforeProviderRequestResult{Body: msg},
		BeforeProviderRequestResult{},
	}
}

func TestHookCodec(t *testing.T) {
	for _, s := range []string{"", "plain", "quote\" back\\ nl\n tab\t \x01 \u2028 <&> é 🎉", "\xff\xfe bad utf8"} {
		for _, n := range []int{0, 1, -7, 123456789012} {
			for _, ev := range sampleHookEvents(s, n, n > 0) {
				checkRoundTrip(t, ev)
			}
			for _, r := range sampleHookResults(s, n, n > 0) {
				checkAppend(t, r)
			}
		}
	}
}

// The messages and bodies these events carry are copies: a handler may
// keep them after the call, when the SDK reuses its receive buffer.
func TestHookCodecCopies(t *testing.T) {
	in := []byte(`{"messages":[{"role":"user"}]}`)
	var ev ContextEvent
	if err := ev.DecodeJSON(in); err != nil {
		t.Fatal(err)
	}
	copy(in, strings.Repeat("x", len(in)))
	if string(ev.Messages[0]) != `{"role":"user"}` {
		t.Fatalf("message aliases the input: %s", ev.Messages[0])
	}
}

// An invalid raw message is refused, as encoding/json refuses it.
func TestHookCodecInvalidRaw(t *testing.T) {
	for _, raw := range []string{`{`, `{"a":1} x`, `nul`, `"\q"`} {
		for _, r := range []JSONAppender{
			ContextResult{Messages: []json.RawMessage{json.RawMessage(raw)}},
			BeforeProviderRequestResult{Body: json.RawMessage(raw)},
		} {
			if _, err := r.AppendJSON(nil); err == nil {
				t.Errorf("%T with %q: encoded", r, raw)
			}
			if _, err := json.Marshal(r); err == nil {
				t.Errorf("%T with %q: encoding/json accepts it, the test is wrong", r, raw)
			}
		}
	}
}

func TestUIRequestAppendJSON(t *testing.T) {
	for _, r := range []UIRequest{
		{},
		{Title: "Pick <one>", Message: "m\n", Options: []string{"a", "é"}, Placeholder: "p", Level: "warning", TimeoutMs: 1500},
		{Options: []string{}},
		{Title: "Edit", Prefill: "a\nb"},
		{Key: "k", Text: "working…"},
		{Key: "w", Lines: []string{"one", "two"}, Placement: "belowEditor"},
	} {
		got, err := r.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		var back UIRequest
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%s: %v", got, err)
		}
		if !reflect.DeepEqual(normUI(back), normUI(r)) {
			t.Fatalf("%s decodes to %+v, want %+v", got, back, r)
		}
	}
}

func normUI(r UIRequest) UIRequest {
	if len(r.Options) == 0 {
		r.Options = nil
	}
	if len(r.Lines) == 0 {
		r.Lines = nil
	}
	return r
}

// The integer fields decode as encoding/json decodes an int: no fraction,
// no exponent.
func TestCodecIntegers(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{{`7`, 7, true}, {`-7`, -7, true}, {`1234567890123456789`, 1234567890123456789, true}, {`1.0`, 0, false}, {`1e3`, 0, false}, {`01`, 0, false}} {
		var p CompactPreparation
		ev := SessionBeforeCompactEvent{}
		err := ev.DecodeJSON([]byte(`{"preparation":{"tokensBefore":` + c.in + `}}`))
		p = ev.Preparation
		jerr := json.Unmarshal([]byte(`{"tokensBefore":`+c.in+`}`), &CompactPreparation{})
		if (err == nil) != c.ok || (jerr == nil) != c.ok || (c.ok && p.TokensBefore != c.want) {
			t.Errorf("%s: got %d, %v (encoding/json: %v)", c.in, p.TokensBefore, err, jerr)
		}
	}
}

func FuzzHookCodec(f *testing.F) {
	f.Add("text", 250, true, []byte(`{"messages":[{"role":"user"}],"body":{"a":1}}`))
	f.Add("\u2028\x00\"", -1, false, []byte(`{"preparation":{"tokensBefore":1e3,"previousSummary":null},"reason":"x"}`))
	f.Fuzz(func(t *testing.T, s string, n int, flag bool, raw []byte) {
		for _, ev := range sampleHookEvents(s, n, flag) {
			checkRoundTrip(t, ev)
		}
		for _, r := range sampleHookResults(s, n, flag) {
			checkAppend(t, r)
		}
		// Arbitrary input never panics, and whatever the fast decoder
		// accepts, encoding/json accepts too (apart from the keys it
		// matches without regard to case, which the host never sends).
		for _, ev := range []decodable{
			&SessionStartEvent{}, &SessionShutdownEvent{}, &SessionBeforeSwitchEvent{}, &SessionBeforeForkEvent{},
			&CommandCompleteEvent{}, &ContextEvent{}, &BeforeProviderRequestEvent{}, &SessionBeforeCompactEvent{},
		} {
			if ev.DecodeJSON(raw) == nil && utf8.Valid(raw) {
				err := json.Unmarshal(raw, reflect.New(reflect.TypeOf(ev).Elem()).Interface())
				var te *json.UnmarshalTypeError
				if err != nil && !errors.As(err, &te) {
					t.Fatalf("fast accepted %q, encoding/json: %v", raw, err)
				}
			}
		}
		// A raw message the encoder passes is one JSON value.
		if _, err := (BeforeProviderRequestResult{Body: raw}).AppendJSON(nil); err == nil && len(raw) > 0 && utf8.Valid(raw) && !json.Valid(raw) {
			t.Fatalf("raw body %q passed", raw)
		}
	})
}

func TestFieldValue(t *testing.T) {
	obj := []byte(`{"name": "team", "order": 250.5, "n": null, "list": [1, {"x": "y"}], "neg": -1e2, "s": "\u00e9"}`)
	for _, c := range []struct {
		key, want string
		ok        bool
	}{
		{"name", `"team"`, true}, {"order", `250.5`, true}, {"n", `null`, true},
		{"list", `[1, {"x": "y"}]`, true}, {"x", "", false}, {"missing", "", false},
	} {
		v, ok := FieldValue(obj, c.key)
		if ok != c.ok || string(v) != c.want {
			t.Errorf("FieldValue(%q) = %q, %v; want %q, %v", c.key, v, ok, c.want, c.ok)
		}
	}
	for _, c := range []struct {
		key  string
		want float64
		ok   bool
	}{{"order", 250.5, true}, {"neg", -100, true}, {"name", 0, false}, {"n", 0, false}, {"list", 0, false}, {"missing", 0, false}} {
		if f, ok := NumberField(obj, c.key); ok != c.ok || f != c.want {
			t.Errorf("NumberField(%q) = %v, %v; want %v, %v", c.key, f, ok, c.want, c.ok)
		}
	}
	if s, ok := StringField(obj, "s"); !ok || s != "é" {
		t.Errorf("StringField(s) = %q, %v", s, ok)
	}
	for _, bad := range []string{``, `null`, `[]`, `{"order":}`, `{"order":01}`, `"x"`} {
		if v, ok := FieldValue([]byte(bad), "order"); ok {
			t.Errorf("FieldValue(%q) = %q, want none", bad, v)
		}
	}
}

func FuzzFieldValue(f *testing.F) {
	f.Add([]byte(`{"order": 250, "name": "x"}`), "order")
	f.Add([]byte(`{"a":{"order":1},"order":[-0.5e3]}`), "order")
	f.Fuzz(func(t *testing.T, raw []byte, key string) {
		v, ok := FieldValue(raw, key)
		if ok && !json.Valid(v) {
			t.Fatalf("FieldValue(%q, %q) = %q, not JSON", raw, key, v)
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil && utf8.Valid(raw) && utf8.ValidString(key) {
			if _, in := m[key]; !in && ok && !strings.ContainsRune(string(raw), '\\') {
				t.Fatalf("FieldValue(%q, %q) found %q, encoding/json has no such key", raw, key, v)
			}
		}
		if n, ok := NumberField(raw, key); ok {
			var want float64
			if err := json.Unmarshal(v, &want); err != nil || want != n {
				t.Fatalf("NumberField(%q, %q) = %v; encoding/json: %v, %v", raw, key, n, want, err)
			}
		}
	})
}
