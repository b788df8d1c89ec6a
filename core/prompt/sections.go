package prompt

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SectionPatch is one entry of a system message's sections: the new text of a
// section, or a nil Text meaning the section was removed.
type SectionPatch struct {
	Name string
	Text *string
}

// Patches is an ordered name → text-or-null map. Order matters: it is the
// order sections appear in the prompt text, so it survives JSON round trips.
type Patches []SectionPatch

// Get returns the patch for name.
func (p Patches) Get(name string) (SectionPatch, bool) {
	for _, e := range p {
		if e.Name == name {
			return e, true
		}
	}
	return SectionPatch{}, false
}

// MarshalJSON writes an object whose keys keep the slice's order.
func (p Patches) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalPlain(e.Name)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		if e.Text == nil {
			b.WriteString("null")
			continue
		}
		v, err := marshalPlain(*e.Text)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object keeping its key order. Values must be
// strings or null; a repeated key keeps its first position and last value.
func (p *Patches) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("sections: %w", err)
	}
	if tok == nil {
		*p = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("sections: want an object, got %v", tok)
	}
	out := Patches{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return fmt.Errorf("sections: %w", err)
		}
		name, _ := kt.(string)
		var v *string
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("sections: value of %q: %w", name, err)
		}
		out = out.set(name, v)
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("sections: %w", err)
	}
	*p = out
	return nil
}

func (p Patches) set(name string, v *string) Patches {
	for i := range p {
		if p[i].Name == name {
			p[i].Text = v
			return p
		}
	}
	return append(p, SectionPatch{Name: name, Text: v})
}

// SectionsOf turns rendered sections into patches (name → text), the form
// the transcript records.
func SectionsOf(r Rendered) Patches {
	out := make(Patches, len(r.Sections))
	for i := range r.Sections {
		t := r.Sections[i].Text
		out[i] = SectionPatch{Name: r.Sections[i].Name, Text: &t}
	}
	return out
}

// DiffSections returns what turns prev into next: changed or new sections in
// next's order, then removals (nil text) in prev's order. It returns nil when
// they hold the same sections with the same texts, whatever their order.
func DiffSections(prev, next Patches) Patches {
	var out Patches
	for _, n := range next {
		if n.Text == nil {
			continue
		}
		if p, ok := prev.Get(n.Name); ok && p.Text != nil && *p.Text == *n.Text {
			continue
		}
		out = append(out, n)
	}
	for _, p := range prev {
		if p.Text == nil {
			continue
		}
		if n, ok := next.Get(p.Name); ok && n.Text != nil {
			continue
		}
		out = append(out, SectionPatch{Name: p.Name})
	}
	return out
}

// Str is a convenience for building patches.
func Str(s string) *string { return &s }
