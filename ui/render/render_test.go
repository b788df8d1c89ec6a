package render

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/prompt"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

const editDiff = "--- a/src/slug.go\n+++ b/src/slug.go\n@@ -3,3 +3,6 @@\n func Slug(n int) string {\n-\treturn \"\"\n+\tif n == 0 {\n+\t\treturn \"0\"\n+\t}\n+\treturn encode(n)\n }\n"

func TestToolViewsGolden(t *testing.T) {
	long := strings.Repeat("line\n", 20)
	cases := []struct {
		name     string
		tool     Tool
		expanded bool
	}{
		{"bash-running-tail", Tool{Name: "bash", Args: json.RawMessage(`{"command":"go test ./..."}`), Output: "1\n2\n3\n4\n5\n6\n7\n"}, false},
		{"bash-done-collapsed", Tool{Name: "bash", Args: json.RawMessage(`{"command":"ls","timeout":5}`), Output: long, Done: true, DurationMs: 12}, false},
		{"bash-done-expanded", Tool{Name: "bash", Args: json.RawMessage(`{"command":"ls"}`), Output: "a\nb\n", Done: true, DurationMs: 1500}, true},
		{"bash-error", Tool{Name: "bash", Args: json.RawMessage(`{"command":"false"}`), Output: "Command exited with code 1", Done: true, IsError: true, DurationMs: 3}, false},
		{"edit-diff", Tool{Name: "edit", Args: json.RawMessage(`{"path":"src/slug.go","edits":[{"oldText":"a","newText":"b"}]}`), Output: "Successfully replaced 1 block(s) in src/slug.go.", Details: json.RawMessage(`{"diff":` + mustJSON(editDiff) + `}`), Done: true, DurationMs: 2}, false},
		{"not-run", Tool{Name: "nope", Args: json.RawMessage(`{}`), Output: "Tool \"nope\" is not available.", Done: true, IsError: true, DurationMs: -1}, false},
		{"hostile-output", Tool{Name: "bash", Args: json.RawMessage(`{"command":"cat x"}`), Output: "ok\x1b]0;pwned\x07\x1b[2J\rgone", Done: true}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			golden(t, "tool-"+c.name, ToolCall(c.tool, c.expanded, 60, Plain()))
		})
	}
}

func TestDiffColoursLines(t *testing.T) {
	st := Colored()
	out := Diff(editDiff, 80, st)
	lines := strings.Split(out, "\n")
	if lines[2] != st.Hunk.Render("@@ -3,3 +3,6 @@") {
		t.Errorf("hunk line %q", lines[2])
	}
	if lines[4] != st.Removed.Render("-    return \"\"") || lines[5] != st.Added.Render("+    if n == 0 {") {
		t.Errorf("changed lines %q %q", lines[4], lines[5])
	}
	if !strings.Contains(out, "\x1b[") {
		t.Error("no colour at all")
	}
}

func TestMarkdownGolden(t *testing.T) {
	md := NewMarkdown(60, "notty")
	golden(t, "markdown", md.Render("# Plan\n\nI will **fix** the `Slug` function:\n\n1. read the test\n2. edit `src/slug.go`\n\n```go\nfunc Slug(n int) string { return \"0\" }\n```\n"))
}

func TestAssistantGolden(t *testing.T) {
	md := NewMarkdown(60, "notty")
	m := prompt.Message{Role: "assistant", StopReason: "aborted", Content: prompt.Content{Blocks: []prompt.Block{
		{Type: "thinking", Thinking: "The test wants \"0\"."},
		{Type: "text", Text: "Fixed it."},
		{Type: "toolCall", Name: "bash"},
	}}}
	golden(t, "assistant-aborted", Assistant(m, md, Plain()))
	golden(t, "user", UserLine("fix the failing test\nplease", 60, Plain()))
}

func TestSummary(t *testing.T) {
	for raw, want := range map[string]string{
		`{"command":"ls -la\nmore"}`:           "ls -la …",
		`{"path":"a.go","offset":3,"limit":2}`: "a.go  limit=2 offset=3",
		`{"q":1}`:                              `{"q":1}`,
		`not json`:                             "not json",
	} {
		if got := Summary(json.RawMessage(raw)); got != want {
			t.Errorf("Summary(%s) = %q, want %q", raw, got, want)
		}
	}
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestHideThinkingFoldsIt(t *testing.T) {
	st := Plain()
	msg := prompt.Message{Role: "assistant", Content: prompt.Content{Blocks: []prompt.Block{{Type: "thinking", Thinking: "secret plan"}, {Type: "text", Text: "answer"}}}}
	md := NewMarkdown(60, st.Glamour)
	if !strings.Contains(Assistant(msg, md, st), "secret plan") {
		t.Fatal("thinking not shown by default")
	}
	st.HideThinking = true
	if out := Assistant(msg, md, st); strings.Contains(out, "secret plan") || !strings.Contains(out, "thinking…") || !strings.Contains(out, "answer") {
		t.Errorf("folded thinking:\n%s", out)
	}
}

// Code blocks are highlighted: a keyword is coloured apart from the rest
// of its line.
func TestMarkdownHighlightsCode(t *testing.T) {
	// Python's lexer is one of the embedded XML ones.
	out := NewMarkdown(60, "dark").Render("```python\ndef slug(n):\n    return \"0\"\n```\n")
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "def") {
			continue
		}
		seqs := map[string]bool{}
		for _, part := range strings.Split(line, "\x1b[")[1:] {
			if i := strings.IndexByte(part, 'm'); i >= 0 {
				seqs[part[:i]] = true
			}
		}
		if len(seqs) < 3 {
			t.Fatalf("the code line has %d distinct colours, want a highlighted line: %q", len(seqs), line)
		}
		return
	}
	t.Fatalf("no code line in %q", out)
}

// What pi relies on from the markdown renderer's dependencies (glamour,
// goldmark, bluemonday and the CSS parsers under it): raw HTML stripped (a
// style attribute, a script's content), bare URLs and e-mail addresses
// linked, a table with aligned columns, a task list, GitHub links
// shortened. An upgrade that changes any of it shows here.
func TestMarkdownFeaturesGolden(t *testing.T) {
	md := NewMarkdown(72, "notty")
	golden(t, "markdown-features", md.Render(`Some <span style="color: red; width: 10px">inline</span> HTML and <b>bold</b>.

<div class="note" align="center">
<p>A block</p>
<script>alert("x")</script>
</div>

See www.example.com/a?b=c, https://go.dev/doc/ and me@example.com.

| left | centre | right |
|:-----|:------:|------:|
| a    | b      | c     |

- [x] done
- [ ] open

https://github.com/charmbracelet/glamour/issues/123 and
https://github.com/charmbracelet/glamour/commit/0123456789abcdef
`))
}

// Character references in raw HTML, which the HTML sanitiser decodes with
// x/net/html's entity tables: named ones with and without their
// semicolon, two-code-point ones, numeric ones and unknown ones, in text
// and in attributes.
func TestMarkdownHTMLEntitiesGolden(t *testing.T) {
	md := NewMarkdown(72, "notty")
	golden(t, "markdown-entities", md.Render(`<span title="a &amp; b &eacute">caf&eacute; &amp; &notin; &NotEqualTilde; &lt;x&gt; &copy &ampx &#233; &#x1F600; &nosuch; &AMP;</span>

<div>Tom &amp; Jerry &hearts; &fjlig; &acE; &frac12</div>
`))
}
