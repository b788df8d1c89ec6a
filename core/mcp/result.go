package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/piwasm/pi/core/tool"
)

// maxResultBytes is where the established harness cuts an MCP result's
// text: the middle goes, the full text is saved to a temporary file.
const maxResultBytes = 20 * 1024

// resultDetails is what a result carries beside its content: the server's
// structured content, and where the full text went when it was cut.
type resultDetails struct {
	Server            string `json:"server"`
	Tool              string `json:"tool"`
	StructuredContent any    `json:"structuredContent,omitempty"`
	FullOutputPath    string `json:"fullOutputPath,omitempty"`
}

// toResult maps a CallToolResult to a pi tool result the way the
// established harness maps it for a direct call: text and images as they
// are, audio and binary resources named but left out, resource links as
// "name: uri", embedded text resources as their text, structured content
// as indented JSON when there is no other content; then the 20 KB cut.
// tmpDir receives the full text of a cut result.
func toResult(server, remote string, r *sdk.CallToolResult, tmpDir string) tool.Result {
	var parts []tool.Part
	for _, c := range r.Content {
		parts = append(parts, toPart(c))
	}
	if len(parts) == 0 && r.StructuredContent != nil {
		b, err := json.MarshalIndent(r.StructuredContent, "", "  ")
		if err == nil {
			parts = append(parts, tool.Part{Type: "text", Text: string(b)})
		}
	}
	if len(parts) == 0 {
		parts = []tool.Part{{Type: "text", Text: ""}}
	}
	d := resultDetails{Server: server, Tool: remote, StructuredContent: r.StructuredContent}
	parts, d.FullOutputPath = limit(parts, tmpDir)
	res := tool.Result{Content: parts, IsError: r.IsError}
	res.Details, _ = json.Marshal(d)
	return res
}

func toPart(c sdk.Content) tool.Part {
	switch c := c.(type) {
	case *sdk.TextContent:
		return tool.Part{Type: "text", Text: c.Text}
	case *sdk.ImageContent:
		return tool.Part{Type: "image", Data: b64(c.Data), MimeType: c.MIMEType}
	case *sdk.AudioContent:
		return tool.Part{Type: "text", Text: fmt.Sprintf("[audio %s omitted]", c.MIMEType)}
	case *sdk.ResourceLink:
		return tool.Part{Type: "text", Text: c.Name + ": " + c.URI}
	case *sdk.EmbeddedResource:
		rc := c.Resource
		if rc == nil {
			return tool.Part{Type: "text", Text: "[empty resource omitted]"}
		}
		if rc.Blob == nil {
			return tool.Part{Type: "text", Text: rc.Text}
		}
		if strings.HasPrefix(rc.MIMEType, "image/") {
			return tool.Part{Type: "image", Data: b64(rc.Blob), MimeType: rc.MIMEType}
		}
		mt := rc.MIMEType
		if mt == "" {
			mt = "unknown type"
		}
		return tool.Part{Type: "text", Text: fmt.Sprintf("[binary resource %s (%s) omitted]", rc.URI, mt)}
	}
	return tool.Part{Type: "text", Text: fmt.Sprintf("[unsupported MCP content %T]", c)}
}

// limit cuts the joined text of parts in the middle when it is over
// maxResultBytes and saves the whole of it to a file in tmpDir; images
// are kept after the text. It returns the new parts and the file.
func limit(parts []tool.Part, tmpDir string) ([]tool.Part, string) {
	var texts []string
	var images []tool.Part
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		} else {
			images = append(images, p)
		}
	}
	all := strings.Join(texts, "\n")
	if len(all) <= maxResultBytes {
		return parts, ""
	}
	headEnd := maxResultBytes / 2
	for headEnd > 0 && !utf8.RuneStart(all[headEnd]) {
		headEnd--
	}
	tailStart := len(all) - (maxResultBytes - maxResultBytes/2)
	for tailStart < len(all) && !utf8.RuneStart(all[tailStart]) {
		tailStart++
	}
	removed := utf8.RuneCountInString(all[headEnd:tailStart])
	lines := strings.Count(all, "\n") + 1
	if strings.HasSuffix(all, "\n") {
		lines--
	}
	where := ""
	path := ""
	if f, err := os.CreateTemp(tmpDir, "pi-mcp-*.txt"); err != nil {
		where = fmt.Sprintf("\n\n[Could not save the full output: %v]", err)
	} else {
		_, werr := f.WriteString(all)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			where = fmt.Sprintf("\n\n[Could not save the full output: %v]", werr)
		} else {
			path = f.Name()
			where = fmt.Sprintf("\n\n[Full output: %s (read it with offset/limit)]", path)
		}
	}
	text := fmt.Sprintf("Warning: truncated output (original token count: %d)\nTotal output lines: %d\n\n%s\u2026%d chars truncated\u2026%s%s",
		int(math.Ceil(float64(len(all))/4)), lines, all[:headEnd], removed, all[tailStart:], where)
	return append([]tool.Part{{Type: "text", Text: text}}, images...), path
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
