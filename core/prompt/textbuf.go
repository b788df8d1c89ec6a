package prompt

import (
	"unicode/utf8"
	"unsafe"
)

// textBuf is an append-only byte buffer for building the prompt. It does
// what strings.Builder does with less work per call (no copy check), which
// matters when a skills catalogue is written in hundreds of small pieces.
// Like strings.Builder, String shares the bytes; the buffer must not be
// written after String is called.
type textBuf struct{ b []byte }

func (t *textBuf) Grow(n int) {
	if cap(t.b)-len(t.b) < n {
		nb := make([]byte, len(t.b), len(t.b)+n)
		copy(nb, t.b)
		t.b = nb
	}
}

func (t *textBuf) Len() int                    { return len(t.b) }
func (t *textBuf) WriteString(s string)        { t.b = append(t.b, s...) }
func (t *textBuf) WriteByte(c byte) error      { t.b = append(t.b, c); return nil }
func (t *textBuf) WriteRune(r rune)            { t.b = utf8.AppendRune(t.b, r) }
func (t *textBuf) Write(p []byte) (int, error) { t.b = append(t.b, p...); return len(p), nil }
func (t *textBuf) String() string              { return unsafe.String(unsafe.SliceData(t.b), len(t.b)) }
