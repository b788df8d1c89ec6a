package mcp

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path"
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
		parts = append(parts, toPart(c, tmpDir))
	}
	if len(parts) == 0 && r.StructuredContent != nil {
		b, err := json.MarshalIndent(r.StructuredContent, "", "  ")
		if err == nil {
			parts = append(parts, tool.Part{Type: "text", Text: string(b)})
		}
	}
	if r.IsError && textOf(parts) == "" {
		parts = append(parts, tool.Part{Type: "text", Text: fmt.Sprintf("The MCP tool %s of %s failed without saying why.", remote, server)})
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

func toPart(c sdk.Content, tmpDir string) tool.Part {
	switch c := c.(type) {
	case *sdk.TextContent:
		return tool.Part{Type: "text", Text: c.Text}
	case *sdk.ImageContent:
		return tool.Part{Type: "image", Data: b64(c.Data), MimeType: c.MIMEType}
	case *sdk.AudioContent:
		return tool.Part{Type: "text", Text: fmt.Sprintf("[audio %s omitted]", c.MIMEType)}
	case *sdk.ResourceLink:
		// The established harness's label: the URI, the title (or name),
		// the type and size when given, the description. Its hint to read
		// the resource is left out: pi has no resource tool yet.
		name := c.Title
		if name == "" {
			name = c.Name
		}
		var about []string
		if c.MIMEType != "" {
			about = append(about, c.MIMEType)
		}
		if c.Size != nil {
			about = append(about, tool.FormatSize(int(*c.Size)))
		}
		text := fmt.Sprintf("[Resource %s %q", c.URI, name)
		if len(about) > 0 {
			text += " (" + strings.Join(about, ", ") + ")"
		}
		if c.Description != "" {
			text += ": " + c.Description
		}
		return tool.Part{Type: "text", Text: text + "]"}
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
		if isTextType(rc.MIMEType) {
			return tool.Part{Type: "text", Text: string(rc.Blob)}
		}
		mt := rc.MIMEType
		if mt == "" {
			mt = "unknown type"
		}
		kind := mt + ", " + tool.FormatSize(len(rc.Blob))
		path, err := saveBlob(tmpDir, rc.URI, rc.Blob)
		if err != nil {
			return tool.Part{Type: "text", Text: fmt.Sprintf("[Binary resource %s (%s) could not be saved: %v]", rc.URI, kind, err)}
		}
		return tool.Part{Type: "text", Text: fmt.Sprintf("[Binary resource %s (%s) saved to %s]", rc.URI, kind, path)}
	}
	return tool.Part{Type: "text", Text: fmt.Sprintf("[unsupported MCP content %T]", c)}
}

// isTextType reports whether a blob of this MIME type is shown as text:
// text/*, JSON and XML flavours.
func isTextType(mt string) bool {
	t, _, _ := strings.Cut(mt, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	return strings.HasPrefix(t, "text/") || t == "application/json" || strings.HasSuffix(t, "+json") || strings.HasSuffix(t, "+xml")
}

// saveBlob writes a binary resource to a new file in tmpDir, named with
// the extension its URI ends in (.bin when none), readable by pi's user
// alone.
func saveBlob(tmpDir, uri string, data []byte) (string, error) {
	p := uri
	if u, err := url.Parse(uri); err == nil && u.Path != "" {
		p = u.Path
	}
	ext := path.Ext(p)
	if len(ext) < 2 || len(ext) > 9 || !isAlnum(ext[1:]) {
		ext = ".bin"
	}
	f, err := os.CreateTemp(tmpDir, "pi-mcp-*"+ext)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", werr
	}
	return f.Name(), nil
}

func isAlnum(s string) bool {
	for _, c := range s {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

func textOf(parts []tool.Part) string {
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
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
