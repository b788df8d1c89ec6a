package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Results map to pi's content as the established harness maps them for a
// direct call, and text over 20 KB is cut in the middle with the whole of
// it in a file.
func TestToResult(t *testing.T) {
	size := int64(2048)
	dir := t.TempDir()
	r := toResult("s", "t", &sdk.CallToolResult{Content: []sdk.Content{
		&sdk.TextContent{Text: "hello"},
		&sdk.ImageContent{Data: []byte{1, 2, 3}, MIMEType: "image/png"},
		&sdk.AudioContent{Data: []byte{1}, MIMEType: "audio/wav"},
		&sdk.ResourceLink{Name: "readme", URI: "file:///r.md"},
		&sdk.ResourceLink{Name: "n", Title: "The log", URI: "file:///x.log", MIMEType: "text/plain", Size: &size, Description: "last run"},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x://a", Text: "inline"}},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x://p", Blob: []byte("plain words"), MIMEType: "text/plain; charset=utf-8"}},
		&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "x://b/pack.zip", Blob: []byte{0, 1}, MIMEType: "application/zip"}},
	}, IsError: true}, dir)
	got, _ := json.Marshal(r.Content)
	saved, _ := filepath.Glob(filepath.Join(dir, "pi-mcp-*.zip"))
	if len(saved) != 1 {
		t.Fatalf("the binary resource was not saved once: %v", saved)
	}
	if b, _ := os.ReadFile(saved[0]); string(b) != "\x00\x01" {
		t.Errorf("saved %q", b)
	}
	want := `[{"type":"text","text":"hello"},{"type":"image","data":"AQID","mimeType":"image/png"},{"type":"text","text":"[audio audio/wav omitted]"},` +
		`{"type":"text","text":"[Resource file:///r.md \"readme\"]"},{"type":"text","text":"[Resource file:///x.log \"The log\" (text/plain, 2.0KB): last run]"},` +
		`{"type":"text","text":"inline"},{"type":"text","text":"plain words"},{"type":"text","text":"[Binary resource x://b/pack.zip (application/zip, 2B) saved to ` + saved[0] + `]"}]`
	if string(got) != want || !r.IsError {
		t.Errorf("content %s (isError %v)\nwant %s", got, r.IsError, want)
	}
	// An error without text says which tool failed.
	if r := toResult("s", "t", &sdk.CallToolResult{IsError: true}, dir); !strings.Contains(r.Text(), "The MCP tool t of s failed") {
		t.Errorf("a silent error: %q", r.Text())
	}

	r = toResult("s", "t", &sdk.CallToolResult{StructuredContent: map[string]any{"temp": 21}}, t.TempDir())
	if r.Text() != "{\n  \"temp\": 21\n}" || !strings.Contains(string(r.Details), `"structuredContent":{"temp":21}`) {
		t.Errorf("structured content: %q %s", r.Text(), r.Details)
	}

	big := strings.Repeat("a", 15000) + "MIDDLE" + strings.Repeat("z", 15000)
	dir = t.TempDir()
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
