package render

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/quick"
	"github.com/alecthomas/chroma/v2/styles"
)

// The highlighter's registries, built on first use by pi's copy of chroma
// (third_party/chroma/PI-PATCH.md) rather than at package initialisation,
// hold what upstream's held, in the same order, and answer every lookup
// the same: each lexer's configuration, a lookup by every name, alias,
// file pattern and MIME type, content analysis, the tokens of the lexers
// written in Go, each style's entries and each formatter's output. The
// golden file was written with upstream chroma v2.14.0 (the replace in
// go.mod removed); regenerate it the same way, never from the patched copy.
func TestHighlighterRegistriesAsUpstream(t *testing.T) {
	if out := os.Getenv("PI_HIGHLIGHTER_DUMP"); out != "" {
		if err := os.WriteFile(out, []byte(dumpHighlighter()), 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	// The registries fill as lexers are first used, so a test that drew a
	// code block earlier in this process would change what they hold: the
	// dump is taken in a fresh run of this test binary.
	out := filepath.Join(t.TempDir(), "dump")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHighlighterRegistriesAsUpstream$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PI_HIGHLIGHTER_DUMP="+out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the dump in a fresh process: %v\n%s", err, msg)
	}
	dump, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "highlighter-registries", string(dump))
}

func dumpHighlighter() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	name := func(l chroma.Lexer) string {
		if l == nil {
			return "<nil>"
		}
		return l.Config().Name
	}
	p("names: %s\n", strings.Join(lexers.Names(true), "|"))
	var probes []string
	for i, l := range lexers.GlobalLexerRegistry.Lexers {
		c := l.Config()
		p("lexer %d %q aliases=%q files=%q alt=%q mime=%q prio=%v\n", i, c.Name, c.Aliases, c.Filenames, c.AliasFilenames, c.MimeTypes, c.Priority)
		probes = append(probes, c.Name, strings.ToLower(c.Name))
		probes = append(probes, c.Aliases...)
		for _, f := range append(c.Filenames, c.AliasFilenames...) {
			probes = append(probes, strings.NewReplacer("*", "x", "?", "y", "[", "", "]", "").Replace(f))
		}
		for _, m := range c.MimeTypes {
			p("mime %q -> %s\n", m, name(lexers.MatchMimeType(m)))
		}
	}
	for _, probe := range probes {
		p("get %q -> %s; match -> %s\n", probe, name(lexers.Get(probe)), name(lexers.Match(probe)))
	}
	for _, s := range []string{
		"#!/bin/bash\necho hi\n", "<?php echo 1; ?>", "package main\nfunc main() {}\n", "@ IN SOA ns. h. 1 2 3 4 5\n",
		"SELECT `a` FROM `b`;", "<html><body>x</body></html>", "def f(x):\n    return x\n", "use v6;\nsay 'hi';\n",
		"(defun f (x) (car x))", "---\na: 1\n", "{\"a\": 1}", "# Title\n\n```go\nx := 1\n```\n",
		"definition user {\n\trelation owner: user\n}\n",
	} {
		p("analyse %q -> %s\n", s, name(lexers.Analyse(s)))
	}
	samples := []struct{ lexer, text string }{
		{"go", "package main\n// c\nfunc main() { x := `a` + \"b\"; _ = x }\n"},
		{"markdown", "# T\n\n<div class=\"a\">h</div>\n\n```go\nx := 1\n```\n*e* **s**\n"},
		{"php", "<html><?php echo $x; ?></html>"},
		{"phtml", "<p><?php echo $x; ?></p>"},
		{"common-lisp", "(defun f (x) (car x)) ; c\n"},
		{"emacs-lisp", "(defmacro m (x) `(when ,x (message \"hi\")))"},
		{"raku", "my $x = 1; say $x ~~ /a+/;\n"},
		{"http", "POST / HTTP/1.1\nContent-Type: application/json\n\n{\"a\": 1}\n"},
		{"svelte", "<script>let x = 1;</script><p>{x}</p>"},
		{"caddyfile", "example.com {\n\treverse_proxy localhost:8080\n}\n"},
		{"caddyfile-directives", "reverse_proxy localhost:8080\n"},
		{"rst", "Title\n=====\n\n.. code:: python\n\n   x = 1\n"},
		{"typoscript", "page = PAGE\npage.10 = TEXT\n"},
		{"genshi", "<p py:if=\"x\">${x}</p>"},
		{"genshitext", "{% if x %}${x}{% end %}"},
		{"html+genshi", "<p py:if=\"x\">${x}</p>"},
		{"haxe", "class A { static function main() { trace(1); } }"},
		{"go-html-template", "<p>{{ .X }}</p>"},
		{"go-text-template", "{{ if .X }}y{{ end }}"},
		{"mysql", "SELECT `a` FROM t;"},
		{"dns", "@ IN SOA ns. h. 1 2 3 4 5\n"},
		{"zed", "definition user {}\n"},
		{"html", "<b>x</b><script>var a=1</script>"},
		{"python", "def f():\n    return 'x'\n"},
	}
	for _, code := range samples {
		lx := lexers.Get(code.lexer)
		it, err := chroma.Coalesce(lx).Tokenise(nil, code.text)
		if err != nil {
			p("tokenise %s: %v\n", code.lexer, err)
			continue
		}
		p("tokens %s (%s): %v\n", code.lexer, name(lx), it.Tokens())
	}
	it, _ := lexers.Fallback.Tokenise(nil, "plain\ntext")
	p("fallback %s %v\n", name(lexers.Fallback), it.Tokens())
	p("styles: %s\n", strings.Join(styles.Names(), "|"))
	for _, s := range styles.Names() {
		st := styles.Get(s)
		types := st.Types()
		sort.Slice(types, func(i, j int) bool { return types[i] < types[j] })
		var entries strings.Builder
		for _, tt := range types {
			fmt.Fprintf(&entries, " %s=%s", tt, st.Get(tt))
		}
		p("style %s: %d entries, sha256 %x\n", s, len(types), sha256.Sum256([]byte(entries.String())))
	}
	p("style fallback %s; get(nope) %s\n", styles.Fallback.Name, styles.Get("nope").Name)
	p("formatters: %s\n", strings.Join(formatters.Names(), "|"))
	for _, f := range append(formatters.Names(), "nope") {
		var out strings.Builder
		err := quick.Highlight(&out, samples[0].text, "go", f, "monokai")
		p("format %s: err=%v, sha256 %x\n", f, err, sha256.Sum256([]byte(out.String())))
	}
	// Not github's style: two of its colours are as far from two entries of
	// the 256-colour table, and which one wins depends on map order.
	for _, f := range []string{"terminal256", "terminal16m", "terminal8", "terminal16"} {
		for _, st := range []string{"charm", "dracula", "monokai"} {
			var out strings.Builder
			quick.Highlight(&out, samples[1].text, "markdown", f, st)
			p("highlight %s %s %q\n", f, st, out.String())
		}
	}
	return b.String()
}
