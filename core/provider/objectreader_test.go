package provider

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// pieceObject is a body with every kind of member: short values (copied
// after their key), a long one (a piece of its own), a list, an empty
// list, and keys that must be escaped.
func pieceObject() *object {
	o := &object{}
	o.set("model", json.RawMessage(`"gpt-x"`))
	o.setList("messages", [][]byte{[]byte(`{"role":"user","content":"hi"}`), []byte(`{"role":"assistant","content":"yo"}`)})
	o.set("stream", json.RawMessage("true"))
	o.set("tools", json.RawMessage(`[{"type":"function","function":{"name":"read","description":"`+strings.Repeat("Read a file. ", 200)+`"}}]`))
	o.set("quo\"ted\u00e9", json.RawMessage(`1`))
	o.setList("empty", [][]byte{})
	o.set("last", json.RawMessage(`{"a":[1,2]}`))
	return o
}

// The reader gives the body bytes() writes, byte for byte, whatever the
// reads' sizes, and size() is its length: with a long value served where
// it is kept and short ones copied after their keys.
func TestObjectReaderAsBytes(t *testing.T) {
	o := pieceObject()
	want := o.bytes()
	if !json.Valid(want) {
		t.Fatalf("bytes() is not JSON: %s", want)
	}
	for _, r := range []io.Reader{o.reader(), iotest.OneByteReader(o.reader()), iotest.HalfReader(o.reader())} {
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("read %q (%v), want %q", got, err, want)
		}
	}
	if o.size() != len(want) {
		t.Errorf("size() = %d, the body has %d bytes", o.size(), len(want))
	}
}

// BenchmarkObjectReader reads a request body piece by piece, as the
// connection's writev takes it: the tool declarations (a few KB) are not
// copied, and a key's piece is one allocation.
func BenchmarkObjectReader(b *testing.B) {
	o := pieceObject()
	r := &objectReader{o: o}
	b.ReportAllocs()
	for b.Loop() {
		*r = objectReader{o: o}
		for p := r.next(); p != nil; p = r.next() {
		}
	}
}
