package mcp

import (
	"io"
	"strings"
	"testing"
)

// A server's stdout keeps its JSON-RPC messages, one a line, and loses the
// rest: blank lines pass silently, every other line is handed to skip (a
// line over the limit by its start, marked too long).
func TestJSONLines(t *testing.T) {
	for _, tc := range []struct {
		name, in, out string
		skipped       []string
	}{
		{"messages", `{"a":1}` + "\n" + `[{"b":2}]` + "\n", `{"a":1}` + "\n" + `[{"b":2}]` + "\n", nil},
		{"banner", "hello\n" + `{"a":1}` + "\n", `{"a":1}` + "\n", []string{"hello"}},
		{"half an object", `{"a":` + "\n" + `{"a":1}` + "\n", `{"a":1}` + "\n", []string{`{"a":`}},
		{"a bare value", "42\n\"x\"\n", "", []string{"42", `"x"`}},
		{"blank lines and CRLF", "\n  \r\n" + `{"a":1}` + "\r\n", `{"a":1}` + "\n", nil},
		{"no final newline", `{"a":1}`, `{"a":1}` + "\n", nil},
		{"too long", `{"a":"` + strings.Repeat("x", 300) + `"}` + "\n" + `{"b":1}` + "\n", `{"b":1}` + "\n", []string{"long:" + `{"a":"` + strings.Repeat("x", 194)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var skipped []string
			r := newJSONLines(strings.NewReader(tc.in), 64, func(line []byte, tooLong bool) {
				s := string(line)
				if tooLong {
					s = "long:" + s
				}
				skipped = append(skipped, s)
			})
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.out {
				t.Errorf("passed %q, want %q", got, tc.out)
			}
			if strings.Join(skipped, "|") != strings.Join(tc.skipped, "|") {
				t.Errorf("skipped %q, want %q", skipped, tc.skipped)
			}
		})
	}
}

func FuzzJSONLines(f *testing.F) {
	f.Add("hello\n{\"a\":1}\n")
	f.Add("{\"a\":\n42\n[1]")
	f.Fuzz(func(t *testing.T, in string) {
		got, err := io.ReadAll(newJSONLines(strings.NewReader(in), 32, func([]byte, bool) {}))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(got), "\n"), "\n") {
			if l != "" && len(l) > 32 {
				t.Fatalf("a line over the limit passed: %q", l)
			}
		}
	})
}
