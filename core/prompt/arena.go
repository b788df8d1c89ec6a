package prompt

import (
	"unsafe"
)

// arena writes built-in sections into one buffer. Each section is opened
// with section or tagged and ended with close (tagged) or by the next
// section; finish turns the spans into sections whose texts share the
// buffer.
type arena struct {
	b     textBuf
	spans []span
	tag   string
}

type span struct {
	name       string
	order      float64
	source     string
	start, end int
}

func newArena(size int) *arena {
	w := &arena{spans: make([]span, 0, 8)}
	w.b.Grow(size)
	return w
}

// section starts an untagged section and returns the buffer to write it to.
func (w *arena) section(name string, order float64, source string) *textBuf {
	w.endSpan()
	if w.b.Len() > 0 {
		w.b.WriteString("\n\n")
	}
	w.spans = append(w.spans, span{name: name, order: order, source: source, start: w.b.Len(), end: -1})
	return &w.b
}

// tagged starts a section wrapped in <name>…</name>; close ends it.
func (w *arena) tagged(name string, order float64, source string) *textBuf {
	b := w.section(name, order, source)
	b.WriteByte('<')
	b.WriteString(name)
	b.WriteString(">\n")
	w.tag = name
	return b
}

func (w *arena) close() {
	w.b.WriteString("\n</")
	w.b.WriteString(w.tag)
	w.b.WriteByte('>')
	w.tag = ""
	w.endSpan()
}

func (w *arena) endSpan() {
	if n := len(w.spans); n > 0 && w.spans[n-1].end < 0 {
		w.spans[n-1].end = w.b.Len()
	}
}

func (w *arena) finish(dst []Section) ([]Section, string) {
	w.endSpan()
	buf := w.b.String()
	for _, s := range w.spans {
		dst = append(dst, Section{Name: s.name, Order: s.order, Text: buf[s.start:s.end], Source: s.source})
	}
	return dst, buf
}

// joinedFromArena returns the rendered sections joined by blank lines as a
// slice of the arena, when they lie in it back to back with exactly a blank
// line between them (the built-in sections in their built order, none
// removed or changed). ok is false otherwise and the caller joins by copy.
func joinedFromArena(buf string, sections []RenderedSection) (string, bool) {
	if buf == "" || len(sections) == 0 {
		return "", false
	}
	base := uintptr(unsafe.Pointer(unsafe.StringData(buf)))
	offset := func(s string) (int, bool) {
		if len(s) == 0 {
			return 0, false
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		if p < base || p+uintptr(len(s)) > base+uintptr(len(buf)) {
			return 0, false
		}
		return int(p - base), true
	}
	first, ok := offset(sections[0].Text)
	if !ok {
		return "", false
	}
	end := first + len(sections[0].Text)
	for _, s := range sections[1:] {
		off, ok := offset(s.Text)
		if !ok || off != end+2 || buf[end:off] != "\n\n" {
			return "", false
		}
		end = off + len(s.Text)
	}
	return buf[first:end], true
}

// estimateSize is a generous guess at the built-in sections' size, so the
// arena is allocated once in the common case.
func estimateSize(o *Options) int {
	n := 2048 + len(o.CustomPrompt) + len(o.AppendText) + len(o.Cwd)
	for _, f := range o.ContextFiles {
		n += len(f.Path) + len(f.Content) + 64
	}
	for _, s := range o.Skills {
		n += (len(s.Name)+len(s.Description)+len(s.Location))*5/4 + 100
	}
	for _, g := range o.Guidelines {
		n += len(g) + 4
	}
	return n
}
