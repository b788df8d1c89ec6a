package resources

import (
	"errors"
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"strconv"
	"strings"

	"github.com/piwasm/pi/internal/yamlerr"
	"gopkg.in/yaml.v3"
)

const bom = "\uFEFF"

// normalizeText strips a leading UTF-8 byte order mark and turns CRLF and
// lone CR line endings into LF.
func normalizeText(s string) string {
	s = strings.TrimPrefix(s, bom)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s
}

// splitFrontmatter separates a leading `---` fenced block from the rest of a
// markdown file. The opening and closing fences are lines holding only
// `---` (trailing blanks allowed). ok is false when there is no complete
// block, in which case body is the whole (normalized) text. The YAML always
// starts on the file's second line, after the opening fence.
func splitFrontmatter(content string) (yamlText, body string, ok bool) {
	content = normalizeText(content)
	first, rest, found := strings.Cut(content, "\n")
	if !found || strings.TrimRight(first, " \t") != "---" {
		return "", content, false
	}
	off := 0
	for off <= len(rest) {
		line, _, more := strings.Cut(rest[off:], "\n")
		if strings.TrimRight(line, " \t") == "---" {
			yamlText = rest[:off]
			after := off + len(line)
			if more {
				after++
			}
			return yamlText, rest[after:], true
		}
		if !more {
			break
		}
		off += len(line) + 1
	}
	return "", content, false
}

// frontmatterError is a YAML problem inside a frontmatter block. Line is the
// 1-based line in the whole file, or 0 when unknown.
type frontmatterError struct {
	Line int
	Err  error
}

func (e *frontmatterError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("invalid frontmatter at line %d: %s", e.Line, yamlMessage(e.Err))
	}
	return "invalid frontmatter: " + yamlMessage(e.Err)
}

func (e *frontmatterError) Unwrap() error { return e.Err }

var (
	yamlLineRe    = lazyre.New(`^yaml: line (\d+): `)
	yamlAnyLineRe = lazyre.New(`line (\d+)`)
)

// yamlMessage drops yaml.v3's "yaml: line N:" prefix; the line is reported
// separately.
func yamlMessage(err error) string {
	msg := err.Error()
	if m := yamlLineRe().FindStringSubmatch(msg); m != nil {
		return msg[len(m[0]):]
	}
	return strings.TrimPrefix(msg, "yaml: ")
}

// parseFrontmatter splits a markdown file into its YAML frontmatter and its
// body. The frontmatter is a leading block fenced by `---` lines; a leading
// byte order mark and CRLF line endings are tolerated. The body is the text
// after the closing fence with surrounding whitespace trimmed.
//
// A file without a complete frontmatter block yields an empty map and the
// whole trimmed text as body. Invalid YAML, or YAML that is not a mapping,
// yields a *[frontmatterError] (with the body still returned).
func parseFrontmatter(content string) (map[string]any, string, error) {
	yamlText, body, ok := splitFrontmatter(content)
	body = strings.TrimSpace(body)
	fm := map[string]any{}
	if !ok || strings.TrimSpace(yamlText) == "" {
		return fm, body, nil
	}
	var node yaml.Node
	if err := yaml.Unmarshal([]byte(yamlText), &node); err != nil {
		line, msg := yamlerr.Split(err, []byte(yamlText))
		if line > 0 {
			line++ // the YAML starts after the opening fence
		}
		return fm, body, &frontmatterError{Line: line, Err: errors.New(msg)}
	}
	if len(node.Content) == 0 {
		return fm, body, nil
	}
	root := node.Content[0]
	if root.Kind != yaml.MappingNode {
		return fm, body, &frontmatterError{Line: root.Line + 1, Err: errors.New("frontmatter is not a mapping of keys to values")}
	}
	if err := root.Decode(&fm); err != nil {
		return map[string]any{}, body, &frontmatterError{Line: yamlErrLine(err), Err: err}
	}
	return fm, body, nil
}

// yamlErrLine converts the YAML line in err to a file line (the YAML starts
// on line 2, after the opening fence).
func yamlErrLine(err error) int {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if m := yamlAnyLineRe().FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			return n + 1
		}
	}
	return 0
}

// fmString returns the string value of key, and whether it was present as a
// string. Present values of other scalar types are not strings.
func fmString(fm map[string]any, key string) (string, bool) {
	v, ok := fm[key]
	if !ok || v == nil {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}
