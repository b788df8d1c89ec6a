package render

import (
	"strings"
	"testing"
)

// markdown.codeBlockIndent prefixes every line of a code block (a mermaid
// block included, drawn as its source as the established harness does with
// markdown.mermaid "off"); the text around keeps its layout.
func TestCodeBlockIndent(t *testing.T) {
	src := "Before the code.\n\n```go\nfmt.Println(1)\nfmt.Println(2)\n```\n\nAfter it.\n\n~~~mermaid\ngraph TD\n  A-->B\n~~~\n"
	for _, style := range []string{"notty", "dark"} {
		out := plainLines(NewMarkdown(60, style).WithCodeBlockIndent("> ").Render(src))
		for _, want := range []string{"  > fmt.Println(1)\n  > fmt.Println(2)", "  > graph TD\n  >   A-->B", "  Before the code.", "  After it."} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in:\n%s", style, want, out)
			}
		}
		// The default draws what glamour draws by itself.
		def := NewMarkdown(60, style)
		if got, want := stripANSI(def.WithCodeBlockIndent(DefaultCodeBlockIndent).Render(src)), stripANSI(NewMarkdown(60, style).Render(src)); got != want {
			t.Errorf("%s: the default indent changed the layout:\n%s\nwant\n%s", style, got, want)
		}
		if !strings.Contains(plainLines(def.Render(src)), "\n    fmt.Println(1)\n") {
			t.Errorf("%s: the default layout is not a four-column code margin:\n%s", style, stripANSI(def.Render(src)))
		}
	}
	// An unclosed fence (a reply still streaming) is code to the end.
	out := stripANSI(NewMarkdown(60, "notty").WithCodeBlockIndent("| ").Render("Text\n\n```\nline one\nline two"))
	if !strings.Contains(out, "  | line one\n  | line two") {
		t.Errorf("an open fence:\n%s", out)
	}
}

func TestSplitFences(t *testing.T) {
	segs := splitFences("a\n```go\nx\n```\nb\n- item\n  ```\n  y\n  ```\n````\nz\n```\n````\n")
	var got []string
	for _, s := range segs {
		kind := "text"
		if s.code {
			kind = "code"
		}
		got = append(got, kind+":"+strings.ReplaceAll(s.text, "\n", "|"))
	}
	want := []string{"text:a|", "code:```go|x|```|", "text:b|- item|  ```|  y|  ```|", "code:````|z|```|````|"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// plainLines is s without colours and without the spaces that pad lines.
func plainLines(s string) string {
	lines := strings.Split(stripANSI(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}
