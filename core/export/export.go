package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"github.com/piwasm/pi/core/prompt"
)

// Meta describes the session an export comes from.
type Meta struct {
	Title     string // a session name, or its first request
	SessionID string
	Cwd       string
	Model     string
	Created   string
	// Palette, when set, colours the HTML page with a theme's colours
	// (the interactive session's); without it the page has its own
	// light and dark colours, following the reader's preference.
	Palette *Palette
}

// Palette is a theme's colours for the HTML page, as CSS colours.
type Palette struct {
	// Dark says the theme is made for a dark background.
	Dark bool
	// PageBg, CardBg, InfoBg are the page, the message cards and the
	// information boxes (export.pageBg, cardBg, infoBg).
	PageBg, CardBg, InfoBg                                    string
	Text, Muted, Dim, Accent, Border, Success, Error, Warning string
	UserBg, UserText                                          string
	ToolPendingBg, ToolSuccessBg, ToolErrorBg                 string
	ToolTitle, ToolOutput, ThinkingText, Code, CodeBlock      string
}

// css returns the rules that recolour the page: they come after the
// built-in ones and replace their colours, the dark-mode ones included.
func (p *Palette) css() string {
	scheme := "light"
	if p.Dark {
		scheme = "dark"
	}
	v := func(s string) string {
		return strings.NewReplacer("<", "", ">", "", ";", "", "{", "", "}", "").Replace(s)
	}
	return fmt.Sprintf(`:root{color-scheme:%s}
body{background:%s;color:%s}
.meta,.role{color:%s}.msg{background:%s;border-left-color:%s}
.user{background:%s;color:%s;border-left-color:%s}
.assistant{background:%s;border-left-color:%s}
.tool{background:%s;color:%s;border-left-color:%s}
.tool.error,.assistant.error{background:%s;border-left-color:%s}
.tool .role{color:%s}.thinking{color:%s}
pre{background:%s;color:%s;border-color:%s}.info{background:%s}
`, scheme, v(p.PageBg), v(p.Text), v(p.Muted), v(p.CardBg), v(p.Border),
		v(p.UserBg), v(p.UserText), v(p.Accent),
		v(p.CardBg), v(p.Accent),
		v(p.ToolSuccessBg), v(p.ToolOutput), v(p.Success),
		v(p.ToolErrorBg), v(p.Error),
		v(p.ToolTitle), v(p.ThinkingText),
		v(p.InfoBg), v(p.CodeBlock), v(p.Border), v(p.InfoBg))
}

// Markdown renders the messages as a Markdown document: user and
// assistant text as paragraphs, tool calls and their results as fenced
// blocks.
func Markdown(meta Meta, msgs []prompt.Message) []byte {
	var b bytes.Buffer
	title := meta.Title
	if title == "" {
		title = "pi session"
	}
	fmt.Fprintf(&b, "# %s\n\n", oneLine(title))
	for _, kv := range metaLines(meta) {
		fmt.Fprintf(&b, "- %s: %s\n", kv[0], kv[1])
	}
	for _, m := range msgs {
		switch m.Role {
		case "user":
			fmt.Fprintf(&b, "\n## User\n\n%s\n", strings.TrimSpace(m.Content.Text()))
		case "assistant":
			b.WriteString("\n## Assistant\n")
			for _, blk := range blocks(m) {
				switch blk.Type {
				case "thinking":
					if t := strings.TrimSpace(blk.Thinking); t != "" {
						fmt.Fprintf(&b, "\n> %s\n", strings.ReplaceAll(t, "\n", "\n> "))
					}
				case "text":
					fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(blk.Text))
				case "toolCall":
					fmt.Fprintf(&b, "\n**%s**\n\n%s", blk.Name, fence("json", string(indentJSON(blk.Arguments))))
				}
			}
			if m.ErrorMessage != "" {
				fmt.Fprintf(&b, "\n*error: %s*\n", oneLine(m.ErrorMessage))
			}
		case prompt.RoleToolResult:
			label := "Result of " + m.ToolName
			if m.Failed() {
				label += " (error)"
			}
			fmt.Fprintf(&b, "\n*%s*\n\n%s", label, fence("", m.Content.Text()))
		}
	}
	return b.Bytes()
}

// fence wraps s in a code fence longer than any run of backticks inside.
func fence(lang, s string) string {
	n := 3
	for run, i := 0, 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + lang + "\n" + strings.TrimRight(s, "\n") + "\n" + f + "\n"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func indentJSON(raw json.RawMessage) []byte {
	var out bytes.Buffer
	if json.Indent(&out, raw, "", "  ") != nil {
		return raw
	}
	return out.Bytes()
}

func blocks(m prompt.Message) []prompt.Block {
	if m.Content.Blocks == nil && m.Content.Str != "" {
		return []prompt.Block{{Type: "text", Text: m.Content.Str}}
	}
	return m.Content.Blocks
}

func metaLines(meta Meta) [][2]string {
	var out [][2]string
	for _, kv := range [][2]string{{"session", meta.SessionID}, {"directory", meta.Cwd}, {"model", meta.Model}, {"created", meta.Created}} {
		if kv[1] != "" {
			out = append(out, kv)
		}
	}
	return out
}

const css = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f;background:#fff}
h1{font-size:1.4rem}.meta{color:#666;font-size:.85rem}.msg{margin:1rem 0;padding:.6rem .9rem;border-radius:6px}
.user{background:#eef5ff;border-left:4px solid #3b82f6}.assistant{background:#f7f7f7;border-left:4px solid #8b5cf6}
.tool{background:#fbfbf4;border-left:4px solid #a3a35a}.error{border-left-color:#dc2626}.role{font-weight:600;font-size:.8rem;text-transform:uppercase;color:#555}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #e5e5e5;padding:.5rem;border-radius:4px;font:13px/1.4 ui-monospace,monospace}
.thinking{color:#777;font-style:italic;white-space:pre-wrap}.text{white-space:pre-wrap}
@media (prefers-color-scheme:dark){body{background:#161618;color:#e6e6e6}.user{background:#1c2433}.assistant{background:#202022}.tool{background:#22221c}pre{background:#111;border-color:#333}.meta,.role{color:#aaa}}`

// HTML renders the messages as one self-contained page: inline styles, no
// scripts, no external resources; images are embedded as data URLs.
func HTML(meta Meta, msgs []prompt.Message) []byte {
	var b bytes.Buffer
	e := html.EscapeString
	title := meta.Title
	if title == "" {
		title = "pi session"
	}
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"+
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"+
		"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n<title>%s</title>\n<style>%s</style>\n", e(oneLine(title)), css)
	if meta.Palette != nil {
		// After the built-in rules, and outside their dark-mode query:
		// the theme decides, not the reader's preference.
		fmt.Fprintf(&b, "<style>%s</style>\n", meta.Palette.css())
	}
	b.WriteString("</head><body>\n")
	fmt.Fprintf(&b, "<h1>%s</h1>\n<div class=\"meta\">", e(oneLine(title)))
	for i, kv := range metaLines(meta) {
		if i > 0 {
			b.WriteString(" · ")
		}
		fmt.Fprintf(&b, "%s: %s", e(kv[0]), e(kv[1]))
	}
	b.WriteString("</div>\n")
	for _, m := range msgs {
		switch m.Role {
		case "user":
			b.WriteString(`<div class="msg user"><div class="role">user</div>`)
			for _, blk := range blocks(m) {
				writeBlock(&b, blk)
			}
			b.WriteString("</div>\n")
		case "assistant":
			cls := "msg assistant"
			if m.StopReason == "error" || m.StopReason == "aborted" {
				cls += " error"
			}
			fmt.Fprintf(&b, `<div class="%s"><div class="role">assistant</div>`, cls)
			for _, blk := range blocks(m) {
				writeBlock(&b, blk)
			}
			if m.ErrorMessage != "" {
				fmt.Fprintf(&b, `<div class="text">error: %s</div>`, e(m.ErrorMessage))
			}
			b.WriteString("</div>\n")
		case prompt.RoleToolResult:
			cls := "msg tool"
			if m.Failed() {
				cls += " error"
			}
			fmt.Fprintf(&b, `<div class="%s"><div class="role">%s result</div>`, cls, e(m.ToolName))
			for _, blk := range blocks(m) {
				writeBlock(&b, blk)
			}
			b.WriteString("</div>\n")
		}
	}
	b.WriteString("</body></html>\n")
	return b.Bytes()
}

func writeBlock(b *bytes.Buffer, blk prompt.Block) {
	e := html.EscapeString
	switch blk.Type {
	case "text":
		fmt.Fprintf(b, `<div class="text">%s</div>`, e(blk.Text))
	case "thinking":
		if t := strings.TrimSpace(blk.Thinking); t != "" {
			fmt.Fprintf(b, `<div class="thinking">%s</div>`, e(t))
		}
	case "toolCall":
		fmt.Fprintf(b, `<div><b>%s</b><pre>%s</pre></div>`, e(blk.Name), e(string(indentJSON(blk.Arguments))))
	case "image":
		if safeImageType(blk.MimeType) && isBase64(blk.Data) {
			fmt.Fprintf(b, `<img alt="image" style="max-width:100%%" src="data:%s;base64,%s">`, blk.MimeType, blk.Data)
		}
	}
}

func safeImageType(t string) bool {
	switch t {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}
