package resources

import (
	"fmt"
	"strings"
)

// Diagnostic kinds. A diagnostic never stops loading: the offending file is
// skipped (or loaded with a warning) and every other file still loads.
const (
	// KindWarning marks a problem that was tolerated or that skipped one item.
	KindWarning = "warning"
	// KindError marks a resource that could not be read or used at all.
	KindError = "error"
	// KindCollision marks a second resource with an already taken name; the
	// first one stays.
	KindCollision = "collision"
	// KindSkipped marks a resource that exists but was deliberately not
	// loaded, for example a project-local file in an untrusted project.
	KindSkipped = "skipped"
)

// Diagnostic is one problem found while loading resources. It is data:
// commands print it, `--json` emits it, and the library never prints it.
//
// Path names the file or directory concerned; Line is 1-based and zero when
// unknown.
type Diagnostic struct {
	Kind    string `json:"kind"`
	Path    string `json:"path"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// String renders the diagnostic as "kind: path:line: message".
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.Kind)
	b.WriteString(": ")
	if d.Path != "" {
		b.WriteString(d.Path)
		if d.Line > 0 {
			fmt.Fprintf(&b, ":%d", d.Line)
		}
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	return b.String()
}

// diagnostics is a small accumulator used by the loaders.
type diagnostics []Diagnostic

func (ds *diagnostics) add(kind, path, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Kind: kind, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (ds *diagnostics) addLine(kind, path string, line int, format string, args ...any) {
	*ds = append(*ds, Diagnostic{Kind: kind, Path: path, Line: line, Message: fmt.Sprintf(format, args...)})
}
