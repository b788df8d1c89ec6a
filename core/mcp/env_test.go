package mcp

import (
	"regexp"
	"testing"
)

// expandVars agrees with the regular expression it replaced.
var varRefRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func viaRegexp(s string, value func(string) string) string {
	return varRefRE.ReplaceAllStringFunc(s, func(m string) string { return value(m[2 : len(m)-1]) })
}

func upper(name string) string { return "<" + name + ">" }

func TestExpandVars(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"${A}", "<A>"},
		{"Bearer ${TOKEN}!", "Bearer <TOKEN>!"},
		{"${A}${B_2}", "<A><B_2>"},
		{"$${A}", "$<A>"},
		{"${${A}", "${<A>"},
		{"${1A} ${} ${A-B} ${A", "${1A} ${} ${A-B} ${A"},
		{"${_x9}", "<_x9>"},
		{"$A {A} $", "$A {A} $"},
	} {
		if got := expandVars(tc.in, upper); got != tc.want {
			t.Errorf("expandVars(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := viaRegexp(tc.in, upper); got != tc.want {
			t.Errorf("the regexp gives %q for %q, the table says %q", got, tc.in, tc.want)
		}
	}
}

func FuzzExpandVars(f *testing.F) {
	for _, s := range []string{"${A}", "$${A}", "${${B}}", "x${1}y${_}", "${A"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := expandVars(s, upper), viaRegexp(s, upper); got != want {
			t.Fatalf("expandVars(%q) = %q, the regexp gives %q", s, got, want)
		}
	})
}
