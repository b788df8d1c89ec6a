package mcp

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Results map to pi's content as the established harness maps them for a
// direct call, and text over 20 KB is cut in the middle with the whole of
// it in a file.
func TestToResult(t *testing.T) {
	r := toResult("s", "t", &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "hello"},
		&sdk.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"},
		&sdk.AudioContent{Data: []byte{1}, MIMEType: "audio/wav"},
		&sdk.ResourceLink{Name: "readme", URI: "file:///r.md"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x://a", Text: "inline"}},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x://b", Blob: []byte{0}, MIMEType: "application/zip"}},
	}, IsError: true}, t.TempDir())
	got, _ := json.Marshal(r.Content)
	want := `[{"type":"text","text":"hello"},{"type":"image","data":"AQID","mimeType":"image/png"},{"type":"text","text":"[audio audio/wav omitted]"},` +
		`{"type":"text","text":"readme: file:///r.md"},{"type":"text","text":"inline"},{"type":"text","text":"[binary resource x://b (application/zip) omitted]"}]`
	if string(got) != want || !r.IsError {
		t.Errorf("content %s (isError %v)\nwant %s", got, r.IsError, want)
	}

	r = toResult("s", "t", &sdk.CallToolResult{StructuredContent: map[string]any{"temp": 21}}, t.TempDir())
	if r.Text() != "{\n  \"temp\": 21\n}" || !strings.Contains(string(r.Details), `"structuredContent":{"temp":21}`) {
		t.Errorf("structured content: %q %s", r.Text(), r.Details)
	}

	big := strings.Repeat("a", 15000) + "MIDDLE" + strings.Repeat("z", 15000)
	dir := t.TempDir()
	r = toResult("s", "t", &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: big}, &sdk.ImageContent{Data: []byte{1}, MIMEType: "image/png"}}}, dir)
	text := r.Text()
	if len(r.Content) != 2 || r.Content[1].Type != "image" || strings.Contains(text, "MIDDLE") || !strings.Contains(text, "\u20269526 chars truncated\u2026") ||
		!strings.HasPrefix(text, "Warning: truncated output (original token count: 7502)\nTotal output lines: 1\n\naaa") {
		t.Errorf("cut: %d parts, %.200q", len(r.Content), text)
	}
	var d resultDetails
	json.Unmarshal(r.Details, &d)
	if full, err := os.ReadFile(d.FullOutputPath); err != nil || string(full) != big || !strings.Contains(text, "[Full output: "+d.FullOutputPath) {
		t.Errorf("the full text: %v", err)
	}
}
