package resources

import (
	"reflect"
	"strings"
	"testing"
)

func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{"", "a b", `"a b" c`, `'x\'y'`, `"unclosed`, "a\"b c\"d", "it's", "\u00a0x\ty\n", `"" ''`, "\xff\"\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		args := ParseArgs(s)
		if args == nil {
			t.Fatal("nil result")
		}
		if !strings.ContainsAny(s, `"'`) {
			if want := strings.Fields(s); !reflect.DeepEqual(args, want) && len(want)+len(args) > 0 {
				t.Fatalf("ParseArgs(%q) = %q, strings.Fields = %q", s, args, want)
			}
		}
		// Arguments never hold more bytes than the input.
		total := 0
		for _, a := range args {
			total += len(a)
		}
		if total > len(s) {
			t.Fatalf("ParseArgs(%q) = %q: more bytes out than in", s, args)
		}
	})
}

func FuzzSubstitute(f *testing.F) {
	f.Add("$1 $@ ${@:2} ${1:-x} $ARGUMENTS", "a b c")
	f.Add("${@:0:1}$$1${ARGUMENTS:-d}${", "")
	f.Add("$99999999999999999999 ${@:99999999999999999999:1}", "x")
	f.Fuzz(func(t *testing.T, content, argText string) {
		args := ParseArgs(argText)
		out := Substitute(content, args)
		if !strings.Contains(content, "$") && out != content {
			t.Fatalf("text without $ changed: %q → %q", content, out)
		}
		// With no arguments, nothing grows except through defaults, which
		// are copied from the content itself.
		if len(args) == 0 && len(Substitute(content, nil)) > len(content) {
			t.Fatalf("grew without arguments: %q → %q", content, out)
		}
		// Inserted values are not re-scanned: arguments made only of
		// placeholders come back verbatim through $1.
		if len(args) > 0 && Substitute("$1", args) != args[0] {
			t.Fatalf("$1 with %q = %q", args, Substitute("$1", args))
		}
		if Substitute("$@", args) != strings.Join(args, " ") {
			t.Fatalf("$@ with %q", args)
		}
	})
}

func FuzzFrontmatter(f *testing.F) {
	f.Add("---\nname: x\ndescription: y\n---\nbody")
	f.Add("---\n- a\n---\n")
	f.Add("\uFEFF---\r\na: [\r\n---\r\n")
	f.Add("no frontmatter")
	f.Add("---\n---\n")
	f.Fuzz(func(t *testing.T, content string) {
		fm, body, err := parseFrontmatter(content)
		if fm == nil {
			t.Fatal("nil map")
		}
		if body != strings.TrimSpace(body) {
			t.Fatalf("body not trimmed: %q", body)
		}
		if err != nil && len(fm) != 0 {
			t.Fatalf("error with values: %v %v", err, fm)
		}
		if !strings.HasPrefix(normalizeText(content), "---") {
			if err != nil || len(fm) != 0 || body != strings.TrimSpace(normalizeText(content)) {
				t.Fatalf("no fence but fm=%v body=%q err=%v", fm, body, err)
			}
		}
		if err == nil {
			// Loading through a skill or template never panics either.
			_ = firstLineDescription(body)
		}
	})
}

func FuzzGitignore(f *testing.F) {
	f.Add("*.log\n!keep.log\nbuild/\n/a/**/b\n[a-\n", "x/keep.log", true)
	f.Add("**/**/**/**/**/**/**/a", "b/b/b/b/b/b/b/b/b/b/b/b/b/b/b/b/c", false)
	f.Add("a*b*c*d*e*f*g", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false)
	f.Fuzz(func(t *testing.T, rules, path string, isDir bool) {
		var g Gitignore
		g.Add("", rules)
		got := g.Match(path, isDir)
		// Adding a trailing comment or blank line changes nothing.
		var h Gitignore
		h.Add("", rules+"\n# comment\n\n")
		if h.Match(path, isDir) != got {
			t.Fatalf("comment changed the result for %q", path)
		}
		// A final negation of everything un-ignores every path; a final
		// "**" ignores every non-empty path.
		var neg Gitignore
		neg.Add("", rules+"\n!**\n!*\n")
		if neg.Match(path, isDir) {
			t.Fatalf("%q still ignored after !**", path)
		}
		var all Gitignore
		all.Add("", rules+"\n**\n")
		if strings.Trim(path, "/") != "" && !strings.Contains(path, "//") && !all.Match(path, isDir) {
			t.Fatalf("%q not ignored by **", path)
		}
		// A literal name without glob characters matches itself.
		if name := strings.Trim(path, "/"); name != "" && !strings.ContainsAny(name, "*?[\\!# \t\r\n/") {
			var lit Gitignore
			lit.Add("", name)
			if !lit.Match(name, isDir) {
				t.Fatalf("literal %q does not match itself", name)
			}
		}
	})
}

// FuzzTrustStore checks that any trust.json content either parses or is
// refused, never panics, and that what pi writes back reads as the same
// decisions (and is written the same way twice).
func FuzzTrustStore(f *testing.F) {
	for _, s := range []string{`{}`, `{"/a": true, "/a/b": false, "/c": null}`, `{"projects": {"/x": true}}`, `{"projects": {"/x": 1}}`,
		`[]`, `{"a": "yes"}`, "\uFEFF{\"/q\\\"uote\": true}", `{"<&>": false}`, `null`, `{"a":true,"a":false}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := parseTrustStore(data)
		if err != nil {
			return
		}
		st := &trustStore{decisions: m}
		out, err := st.encode()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		back, legacy, err := parseTrustStore(out)
		if err != nil || legacy {
			t.Fatalf("pi's own output does not read back (legacy=%v): %v\n%s", legacy, err, out)
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip changed the decisions:\n%v\n%v", m, back)
		}
		again, _ := (&trustStore{decisions: back}).encode()
		if string(again) != string(out) {
			t.Fatalf("encoding is not stable:\n%s\n%s", out, again)
		}
	})
}
