package yamlerr

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// Each case puts its mistake on a known line; yaml.v3 alone reports the
// parser's problems one line early.
func TestSplitLines(t *testing.T) {
	cases := []struct {
		src  string
		line int
		msg  string
	}{
		{"a: 1\nb: [x\nc: 2\n", 2, "did not find expected ',' or ']'"},
		{"a: 1\nb: {x\nc: 2\n", 2, "did not find expected ',' or '}'"},
		{"a: 1\n- b\n", 2, "did not find expected key"},
		{"a: [x\n", 1, "did not find expected ',' or ']'"},
		{"a: 1\nb: c: d\n", 2, "mapping values are not allowed in this context"},
		{"a: 1\n\tb: 2\n", 2, "found a tab character that violates indentation"},
		{"a: 1\nb: @x\n", 2, "found character that cannot start any token"},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		var v any
		err := yaml.Unmarshal([]byte(c.src), &v)
		if err == nil {
			t.Fatalf("%q parsed", c.src)
		}
		line, msg := Split(err, []byte(c.src))
		if line != c.line || msg != c.msg {
			t.Errorf("%q: line %d %q, want line %d %q (yaml said %v)", c.src, line, msg, c.line, c.msg, err)
		}
	}
}
