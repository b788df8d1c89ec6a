package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/theme"
)

// themed is the dark theme with a few roles set to colours easy to find
// in the output.
func themed(t *testing.T, roles map[string]string) *theme.Theme {
	t.Helper()
	d, _ := theme.Builtin("dark")
	colors := map[string]string{}
	for _, r := range theme.Roles() {
		colors[r] = d.Color(r).Spec()
	}
	for k, v := range roles {
		colors[k] = v
	}
	data, _ := json.Marshal(map[string]any{"name": "test", "appearance": "dark", "colors": colors})
	th, err := theme.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

func TestThemeColoursMarkdownAndCode(t *testing.T) {
	th := themed(t, map[string]string{"mdHeading": "#ff0000", "syntaxKeyword": "#00ff00", "mdCode": "#0000ff", "syntaxString": "#ffff00"})
	st := FromTheme(th)
	out := st.NewMarkdown(60).Render("# Plan\n\nRun `make`.\n\n```go\nfunc main() { println(\"hi\") }\n```\n")
	for name, seq := range map[string]string{"heading": "38;2;255;0;0", "keyword": "38;2;0;255;0", "inline code": "38;2;0;0;255", "string": "38;2;255;255;0"} {
		if !strings.Contains(out, seq) {
			t.Errorf("the %s is not in the theme's colour (%s):\n%q", name, seq, out)
		}
	}
	// Another theme gets its own code colours (glamour would reuse the
	// first theme's chroma style).
	other := FromTheme(themed(t, map[string]string{"syntaxKeyword": "#00ffff"}))
	if out := other.NewMarkdown(60).Render("```go\nfunc main() {}\n```\n"); !strings.Contains(out, "38;2;0;255;255") {
		t.Errorf("the second theme's keyword colour is missing:\n%q", out)
	}
}

func TestThemePanelsAndRoles(t *testing.T) {
	th := themed(t, map[string]string{"userMessageBg": "#102030", "userMessageText": "#ff8800", "toolSuccessBg": "#203010", "toolDiffContext": "#808000"})
	st := FromTheme(th)
	user := UserLine("hello", 30, st)
	if !strings.Contains(user, "48;2;16;32;48") || !strings.Contains(user, "38;2;255;136;0") {
		t.Errorf("user message: %q", user)
	}
	if w := len([]rune(stripANSI(strings.Split(user, "\n")[0]))); w != 30 {
		t.Errorf("the panel is %d wide, want 30", w)
	}
	tool := ToolCall(Tool{Name: "edit", Args: json.RawMessage(`{"path":"a.go"}`), Done: true, Details: json.RawMessage(`{"diff":"@@ -1 +1 @@\n same\n-old\n+new"}`)}, false, 40, st)
	if !strings.Contains(tool, "48;2;32;48;16") || !strings.Contains(tool, "38;2;128;128;0") {
		t.Errorf("tool panel or diff context: %q", tool)
	}
}

// The system theme draws exactly what pi drew before themes.
func TestSystemThemeIsTheANSIPalette(t *testing.T) {
	sys, _ := theme.Builtin(theme.System)
	a, b := FromTheme(sys), Colored()
	tool := Tool{Name: "bash", Args: json.RawMessage(`{"command":"ls"}`), Output: "a\nb", Done: true, Details: nil}
	if x, y := ToolCall(tool, false, 40, a), ToolCall(tool, false, 40, b); x != y {
		t.Errorf("tool: %q vs %q", x, y)
	}
	if x, y := Diff("@@ -1 +1 @@\n x\n-a\n+b", 40, a), Diff("@@ -1 +1 @@\n x\n-a\n+b", 40, b); x != y {
		t.Errorf("diff: %q vs %q", x, y)
	}
	if x, y := UserLine("hi", 40, a), UserLine("hi", 40, b); x != y {
		t.Errorf("user: %q vs %q", x, y)
	}
	if a.Markdown != nil || a.Glamour != "dark" {
		t.Error("the system theme keeps glamour's standard style")
	}
}
