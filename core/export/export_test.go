package export

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/prompt"
)

func sample() []prompt.Message {
	no := false
	return []prompt.Message{
		{Role: "user", Content: prompt.TextContent("fix <script>alert(1)</script> please")},
		{Role: "assistant", StopReason: "toolUse", Content: prompt.Content{Blocks: []prompt.Block{
			{Type: "thinking", Thinking: "look first"},
			{Type: "text", Text: "Reading it."},
			{Type: "toolCall", ID: "c1", Name: "read", Arguments: json.RawMessage(`{"path":"a.go"}`)},
		}}},
		{Role: prompt.RoleToolResult, ToolCallID: "c1", ToolName: "read", IsError: &no, Content: prompt.TextContent("x := \"```\"\n")},
		{Role: "assistant", StopReason: "stop", Content: prompt.TextContent("Done.")},
	}
}

func TestHTMLEscapesAndIsSelfContained(t *testing.T) {
	out := string(HTML(Meta{Title: "t<b>", SessionID: "s1"}, sample()))
	for _, bad := range []string{"<script>", "t<b>", "http://", "https://", "<link", "src=\"http"} {
		if strings.Contains(out, bad) {
			t.Errorf("export contains %q", bad)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "Reading it.", "look first", "&#34;path&#34;", "read result", "Done.", "default-src 'none'"} {
		if !strings.Contains(out, want) {
			t.Errorf("export lacks %q", want)
		}
	}
}

func TestMarkdownFencesOutlastContent(t *testing.T) {
	out := string(Markdown(Meta{Title: "fix"}, sample()))
	if !strings.Contains(out, "````\nx := \"```\"\n````") {
		t.Errorf("tool output with a fence inside is not fenced longer:\n%s", out)
	}
	for _, want := range []string{"# fix", "## User", "## Assistant", "**read**", "Done."} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
}

func TestImagesOnlyAsSafeDataURLs(t *testing.T) {
	msgs := []prompt.Message{{Role: "user", Content: prompt.Content{Blocks: []prompt.Block{
		{Type: "image", MimeType: "image/png", Data: "iVBORw0KGgo="},
		{Type: "image", MimeType: "text/html", Data: "PGI+"},
		{Type: "image", MimeType: "image/png", Data: `x" onerror="alert(1)`},
	}}}}
	out := string(HTML(Meta{}, msgs))
	if !strings.Contains(out, "data:image/png;base64,iVBORw0KGgo=") {
		t.Error("a PNG is not embedded")
	}
	if strings.Contains(out, "text/html") || strings.Contains(out, "onerror") {
		t.Error("an unsafe image was embedded")
	}
}
