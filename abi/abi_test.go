package abi

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeEnvelope(t *testing.T) {
	var r InputResult
	if err := DecodeEnvelope([]byte(`{"result":{"action":"transform","text":"x"}}`), &r); err != nil || r.Action != ActionTransform || r.Text != "x" {
		t.Fatalf("got %+v, %v", r, err)
	}
	var ge *GuestError
	if err := DecodeEnvelope([]byte(`{"error":"boom"}`), &r); !errors.As(err, &ge) || ge.Message != "boom" {
		t.Fatalf("want guest error, got %v", err)
	}
	for _, bad := range []string{``, `{}`, `{"result":1} x`, `nope`, `{"result":{"action":5}}`, `{"result":1,"error":"x"}`, `[]`} {
		if err := DecodeEnvelope([]byte(bad), &r); !errors.Is(err, ErrBadEnvelope) {
			t.Errorf("%q: want bad envelope, got %v", bad, err)
		}
	}
	b, _ := EncodeResult(CommandResult{Send: "hi"})
	var c CommandResult
	if err := DecodeEnvelope(b, &c); err != nil || c.Send != "hi" {
		t.Fatalf("round trip: %+v %v", c, err)
	}
}

func FuzzDecodeEnvelope(f *testing.F) {
	f.Add([]byte(`{"result":{"ops":[{"op":"set_section","name":"a","text":"b","order":250}]}}`))
	f.Add([]byte(`{"error":"x"}`))
	f.Add([]byte(`{"result":null}`))
	f.Add([]byte(`{"result":{"ops":[{"op":"set_variable","name":"v","value":null}]},"error":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var a AssembleResult
		err := DecodeEnvelope(data, &a)
		if err != nil {
			var ge *GuestError
			if !errors.Is(err, ErrBadEnvelope) && !errors.As(err, &ge) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		// Applying whatever decoded must never panic, and a valid result
		// must survive a re-encode.
		ev := AssembleEvent{Sections: []Section{{Name: "a", Text: "x"}}}
		if _, err := ApplyAssemble(ev, a.Ops); err == nil {
			b, err := EncodeResult(a)
			if err != nil {
				t.Fatal(err)
			}
			var again AssembleResult
			if err := DecodeEnvelope(b, &again); err != nil {
				t.Fatalf("re-decode: %v", err)
			}
		}
		var bas BeforeAgentStartResult
		_ = DecodeEnvelope(data, &bas)
		_ = ValidateOps(HookBeforeAgentStart, bas.Ops)
	})
}

func f64(v float64) *float64 { return &v }
func str(s string) *string   { return &s }

func TestOpValidate(t *testing.T) {
	good := []struct {
		hook string
		op   Op
	}{
		{HookBeforeAgentStart, Op{Op: OpSetSection, Name: "team", Text: "x", Order: f64(250)}},
		{HookBeforeAgentStart, Op{Op: OpSetVariable, Name: "branch", Value: str("main")}},
		{HookBeforeAgentStart, Op{Op: OpSetVariable, Name: "branch"}},
		{HookBeforeAgentStart, Op{Op: OpAddGuideline, Text: "be kind"}},
		{HookAssemble, Op{Op: OpSuppressContexts}},
		{HookAssemble, Op{Op: OpSetSection, Name: "preamble", Text: "x"}},
	}
	for _, g := range good {
		if err := g.op.Validate(g.hook); err != nil {
			t.Errorf("%+v: %v", g.op, err)
		}
	}
	bad := []struct {
		hook string
		op   Op
	}{
		{HookInput, Op{Op: OpSetSection, Name: "a"}},
		{HookAssemble, Op{Op: OpSetCustomPrompt, Text: "x"}},
		{HookBeforeAgentStart, Op{Op: OpSetSection, Name: "Bad"}},
		{HookBeforeAgentStart, Op{Op: OpSetSection, Name: "preamble"}},
		{HookBeforeAgentStart, Op{Op: OpSetVariable, Name: "a-b"}},
		{HookBeforeAgentStart, Op{Op: OpRemoveSection, Name: "a", Text: "x"}},
		{HookAssemble, Op{Op: "explode"}},
	}
	for _, b := range bad {
		if err := b.op.Validate(b.hook); err == nil {
			t.Errorf("%s %+v: want error", b.hook, b.op)
		}
	}
}

func TestApplyAssemble(t *testing.T) {
	ev := AssembleEvent{
		Sections: []Section{{Name: "preamble", Text: "p"}, {Name: "rules", Order: 200, Text: "r"}},
		Contexts: []Context{{Name: "c", Text: "ctx"}},
	}
	out, err := ApplyAssemble(ev, []Op{
		{Op: OpSetSection, Name: "rules", Text: "R"},
		{Op: OpSetSection, Name: "team", Text: "T", Order: f64(250)},
		{Op: OpRemoveSection, Name: "preamble"},
		{Op: OpSetVariable, Name: "v", Value: str("1")},
		{Op: OpSuppressContexts},
		{Op: OpSetContext, Name: "d", Text: "ignored"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Sections[1].Text != "r" || len(ev.Sections) != 2 {
		t.Fatal("input modified")
	}
	b, _ := json.Marshal(out)
	want := `{"sections":[{"name":"rules","order":200,"text":"R"},{"name":"team","order":250,"text":"T"}],"variables":[{"name":"v","value":"1"}],"contextsSuppressed":true}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	if _, err := ApplyAssemble(ev, []Op{{Op: OpSetSection, Name: "ok"}, {Op: OpSetAppend}}); err == nil {
		t.Fatal("want error for set_append in assemble")
	}
}

func TestManifestValidate(t *testing.T) {
	m := Manifest{Name: "git-branch", ABI: 1, Hooks: []string{HookBeforeAgentStart}, Capabilities: Capabilities{Files: []string{".git/HEAD", "docs/**/*.md"}}}
	if errs := m.Validate(); len(errs) != 0 {
		t.Fatal(errs)
	}
	bad := Manifest{Name: "Bad_Name", ABI: 2, Module: "../x.wasm", Hooks: []string{"nope", HookInput, HookInput},
		Commands:     []CommandInfo{{Name: "x"}},
		Capabilities: Capabilities{Files: []string{"/etc/passwd", "../up", "a/[/b"}},
		Limits:       Limits{TimeoutMs: 999999, MemoryMiB: -1}, Failure: "explode"}
	var fields []string
	for _, e := range bad.Validate() {
		var fe *FieldError
		if !errors.As(e, &fe) {
			t.Fatalf("untyped %v", e)
		}
		fields = append(fields, fe.Field)
	}
	got := strings.Join(fields, " ")
	want := "name abi module hooks[0] hooks[2] hooks capabilities.files[0] capabilities.files[1] capabilities.files[2] limits.timeoutMs limits.memoryMiB failure"
	if got != want {
		t.Fatalf("fields:\n got %s\nwant %s", got, want)
	}
}

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		g, p string
		ok   bool
	}{
		{".git/HEAD", ".git/HEAD", true},
		{".git/HEAD", ".git/config", false},
		{"docs/**/*.md", "docs/a.md", true},
		{"docs/**/*.md", "docs/x/y/a.md", true},
		{"docs/**/*.md", "src/a.md", false},
		{"*.txt", "a/b.txt", false},
		{"**", "any/thing", true},
	}
	for _, c := range cases {
		if MatchGlob(c.g, c.p) != c.ok {
			t.Errorf("MatchGlob(%q,%q) != %v", c.g, c.p, c.ok)
		}
	}
}

func TestLimitsEffective(t *testing.T) {
	l := Limits{TimeoutMs: 99999}.Effective()
	if l != (Limits{TimeoutMs: MaxTimeoutMs, MemoryMiB: DefaultMemoryMiB, OutputKiB: DefaultOutputKiB}) {
		t.Fatal(l)
	}
}

func TestInputPrefixes(t *testing.T) {
	m := Manifest{Name: "x", ABI: Version, Hooks: []string{HookBeforeAgentStart}, InputPrefixes: []string{"?", "!!"}}
	if errs := m.Validate(); len(errs) != 0 {
		t.Fatal(errs)
	}
	for in, want := range map[string]bool{"?a": true, "  ?a": true, "!!x": true, "!x": false, "a?": false, "": false} {
		if got := m.WantsInput(in); got != want {
			t.Errorf("WantsInput(%q) = %v", in, got)
		}
	}
	if (&Manifest{}).WantsInput("anything") != true {
		t.Error("no prefixes must mean every input")
	}
	bad := Manifest{Name: "x", ABI: Version, Hooks: []string{HookInput}, InputPrefixes: []string{" "}}
	errs := bad.Validate()
	if len(errs) != 2 {
		t.Fatalf("want an empty-prefix and a wrong-hook error, got %v", errs)
	}
}
