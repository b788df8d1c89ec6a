package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

func marshal(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppendAsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain ascii text, longer than eight bytes",
		"quote \" and backslash \\ inside",
		"\b\f\n\r\t\x00\x01\x1f\x7f",
		"<html> & 'apostrophes'",
		"ünïcødé and emoji 🙂",
		"invalid \xff\xfe utf-8 \xc3",
		"line\u2028and paragraph\u2029separators",
		"12345678\"12345678\\",
	} {
		if got, want := Append(nil, s), marshal(s); !bytes.Equal(got, want) {
			t.Errorf("Append(%q) = %s, encoding/json: %s", s, got, want)
		}
	}
}

func FuzzAppend(f *testing.F) {
	f.Add("a\"b\\c\n\b\f\x00\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Append(nil, s), marshal(s); !bytes.Equal(got, want) {
			t.Errorf("Append(%q) = %s, encoding/json: %s", s, got, want)
		}
	})
}
