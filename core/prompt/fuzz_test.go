package prompt

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func FuzzInterpolate(f *testing.F) {
	for _, s := range []string{"", "plain", "{{a}}", "{{a}}{{b}}", "{{ a }}", "{{{a}}}", "a {{b {{c", "x {{a{b}} y {{a}}", "}} {{", "{{\xff}}", "{{😀😀😀😀😀😀😀😀😀{x}}"} {
		f.Add(s, "v")
	}
	f.Fuzz(func(t *testing.T, text, value string) {
		vars := []Variable{{Name: "a", Value: &value}, {Name: "b", Value: nil}}
		out, err := interpolate(text, vars, `section "s"`)
		if err != nil {
			var ie *interpolationError
			if !errors.As(err, &ie) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if !strings.Contains(text, "{{") && out != text {
			t.Fatalf("text without {{ changed: %q -> %q", text, out)
		}
		// Substituting a value that itself looks like a reference must not
		// be rescanned: interpolating "{{a}}" yields exactly the value.
		if text == "{{a}}" && out != value {
			t.Fatalf("value rescanned: %q", out)
		}
		if !strings.Contains(text, "{{a}}") && !strings.Contains(text, "{{b}}") && out != text {
			t.Fatalf("no reference but output differs: %q -> %q", text, out)
		}
	})
}

func FuzzReplay(f *testing.F) {
	f.Add(`[{"role":"system","content":"a","sections":{"x":"1","y":null}},{"role":"user","content":"u"},{"role":"system","content":[{"type":"text","text":"b"}],"sections":{"x":"2","z":"3"}}]`)
	f.Add(`[{"role":"user","content":"x"}]`)
	f.Fuzz(func(t *testing.T, doc string) {
		var msgs []Message
		if json.Unmarshal([]byte(doc), &msgs) != nil {
			return
		}
		head, ok := Replay(msgs)
		hasSystem := false
		for _, m := range msgs {
			hasSystem = hasSystem || m.Role == "system"
		}
		if ok != hasSystem {
			t.Fatalf("ok=%v with system messages=%v", ok, hasSystem)
		}
		if !ok {
			return
		}
		seen := map[string]bool{}
		for _, p := range head.Sections {
			if p.Text == nil {
				t.Fatalf("replayed head keeps a deletion for %q", p.Name)
			}
			if seen[p.Name] {
				t.Fatalf("section %q twice", p.Name)
			}
			seen[p.Name] = true
		}
		// collapse keeps every non-system message and leaves one system one.
		col := collapse(msgs)
		n := 0
		for _, m := range col {
			if m.Role == "system" {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("collapse left %d system messages", n)
		}
		// Diffing the head against itself is empty; against nothing it is
		// the full set, and replaying that patch gives the head back.
		if DiffSections(head.Sections, head.Sections) != nil {
			t.Fatal("self diff not empty")
		}
		re, _ := Replay([]Message{{Role: "system", Sections: DiffSections(nil, head.Sections)}})
		if SystemText(Message{Sections: re.Sections}) != SystemText(Message{Sections: head.Sections}) {
			t.Fatal("replaying a full diff does not reproduce the sections")
		}
	})
}
