package abi

import (
	"regexp"
	"strings"
	"testing"
)

// The one naming rule: the table pins what each kind of name accepts, so a
// change here shows up in every layer that validates names (abi ops,
// settings.json, --section).
func TestNameRules(t *testing.T) {
	cases := []struct {
		name                   string
		context, section, vari bool
	}{
		{"git", true, true, true},
		{"a", true, true, true},
		{"team_notes2", true, true, true},
		{"team-notes", true, true, false},
		{"preamble", true, false, true},
		{"", false, false, false},
		{"Git", false, false, false},
		{"2fa", false, false, false},
		{"_x", false, false, false},
		{"-x", false, false, false},
		{"a b", false, false, false},
		{"a.b", false, false, false},
		{"é", false, false, false},
		{"aé", false, false, false},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		if got := ValidContextName(c.name) == nil; got != c.context {
			t.Errorf("ValidContextName(%q) ok = %v, want %v", c.name, got, c.context)
		}
		if got := ValidSectionName(c.name) == nil; got != c.section {
			t.Errorf("ValidSectionName(%q) ok = %v, want %v", c.name, got, c.section)
		}
		if got := ValidVariableName(c.name) == nil; got != c.vari {
			t.Errorf("ValidVariableName(%q) ok = %v, want %v", c.name, got, c.vari)
		}
		// Tool names follow the variable rule, bounded in length.
		if got := ValidToolName(c.name) == nil; got != c.vari {
			t.Errorf("ValidToolName(%q) ok = %v, want %v", c.name, got, c.vari)
		}
	}
	long := strings.Repeat("a", 64)
	if ValidToolName(long) != nil || ValidToolName(long+"a") == nil {
		t.Errorf("tool names: 64 bytes must pass and 65 must not")
	}
}

// The hand-written checks must accept exactly what the documented patterns
// accept.
func FuzzNameRules(f *testing.F) {
	for _, s := range []string{"git", "team-notes", "a_1", "", "A", "9", "a b", "é", "preamble", "a\n"} {
		f.Add(s)
	}
	dashed := regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	plain := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	ext := regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isExtName(s), ext.MatchString(s); got != want {
			t.Errorf("isExtName(%q) = %v, pattern says %v", s, got, want)
		}
		if got, want := ValidContextName(s) == nil, dashed.MatchString(s); got != want {
			t.Errorf("ValidContextName(%q) ok = %v, pattern says %v", s, got, want)
		}
		if got, want := ValidSectionName(s) == nil, dashed.MatchString(s) && s != "preamble"; got != want {
			t.Errorf("ValidSectionName(%q) ok = %v, want %v", s, got, want)
		}
		if got, want := ValidVariableName(s) == nil, plain.MatchString(s); got != want {
			t.Errorf("ValidVariableName(%q) ok = %v, pattern says %v", s, got, want)
		}
		if got, want := ValidToolName(s) == nil, plain.MatchString(s) && len(s) <= 64; got != want {
			t.Errorf("ValidToolName(%q) ok = %v, want %v", s, got, want)
		}
	})
}
