package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Mode says whether a tool's calls may run alongside others in the same turn.
type Mode uint8

const (
	// Parallel calls run concurrently with the other calls of a turn.
	Parallel Mode = iota
	// Sequential calls run alone, after the calls before them finished.
	Sequential
)

// Hints describe a tool's reach; permissions use them to decide what to ask.
type Hints struct {
	ReadOnly, Destructive, OpenWorld bool
}

// Part is one piece of result content. Its JSON form is the transcript's
// text and image content blocks: Type is "text" or "image"; Data is base64.
type Part struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// Result is what a call gives back: content for the model, details for
// people and logs, and whether the call failed.
type Result struct {
	Content []Part          `json:"content"`
	Details json.RawMessage `json:"details,omitempty"`
	IsError bool            `json:"isError,omitempty"`
}

// TextResult is a successful result holding one text part.
func TextResult(s string) Result {
	return Result{Content: []Part{{Type: "text", Text: s}}}
}

// ErrorResult is a failed result whose text is the formatted message.
func ErrorResult(format string, a ...any) Result {
	r := TextResult(fmt.Sprintf(format, a...))
	r.IsError = true
	return r
}

// Text joins the result's text parts with newlines; images are skipped.
func (r Result) Text() string {
	var texts []string
	for _, p := range r.Content {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// Call is one invocation as the tool sees it. Args have already been folded,
// validated and coerced by Prepare.
type Call struct {
	ID, Name string
	Args     map[string]any
}

// Update streams a partial result while a call runs.
type Update func(partial Result)

// RunFunc runs a call. The error is for unexpected failures only; expected
// ones (missing file, failing command) are Results with IsError set, so the
// model can read them.
type RunFunc func(ctx context.Context, call Call, update Update) (Result, error)

// Tool is everything pi knows about one tool.
type Tool struct {
	Name, Description string
	// Parameters is the JSON Schema as exact bytes.
	Parameters json.RawMessage
	// Snippet is the tool's one line in <tools>; empty means it is not listed.
	Snippet string
	// Guidelines are bullets added to <rules> while the tool is declared.
	Guidelines []string
	Mode       Mode
	Hints      Hints
	// Source is "builtin", "extension:<name>" or "mcp:<server>".
	Source string
	// Fold, when set, rewrites legacy argument shapes before validation.
	Fold func(raw map[string]any) map[string]any
	Run  RunFunc

	// schema is Parameters decoded once, shared by the copies of a
	// registered tool (Registry.Add sets it), so Prepare does not decode
	// the schema again for every call.
	schema *decodedSchema
}

// SourceBuiltin is the Source of pi's own tools.
const SourceBuiltin = "builtin"

// SourceMCP starts the Source of an MCP server's tools: "mcp:<server>".
const SourceMCP = "mcp:"
