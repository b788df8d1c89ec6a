package diag

import (
	"fmt"
	"strings"
)

// Diagnostic is one problem found while loading or running: data the
// library never prints; commands print it (String) or emit it as JSON.
//
// Kind is what went wrong ("warning", "error", "skipped", "compile", ...;
// each producer documents its kinds). Path names the file concerned and Line
// is 1-based, zero when unknown. Extension names the extension concerned,
// when one is.
type Diagnostic struct {
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	Line      int    `json:"line,omitempty"`
	Extension string `json:"extension,omitempty"`
	Message   string `json:"message"`
}

// Where names the place of d: "path:line", the path, or "extension:NAME"
// when no file is concerned; "" when nothing is known.
func (d Diagnostic) Where() string {
	switch {
	case d.Path != "" && d.Line > 0:
		return fmt.Sprintf("%s:%d", d.Path, d.Line)
	case d.Path != "":
		return d.Path
	case d.Extension != "":
		return "extension:" + d.Extension
	}
	return ""
}

// String renders d as "kind: where: message", or "kind: message" when
// Where is empty.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.Kind)
	b.WriteString(": ")
	if w := d.Where(); w != "" {
		b.WriteString(w)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	return b.String()
}
