package resources

import (
	"fmt"

	"github.com/piwasm/pi/core/diag"
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

// diagnostics is a small accumulator used by the loaders.
type diagnostics []diag.Diagnostic

func (ds *diagnostics) add(kind, path, format string, args ...any) {
	*ds = append(*ds, diag.Diagnostic{Kind: kind, Path: path, Message: fmt.Sprintf(format, args...)})
}

func (ds *diagnostics) addLine(kind, path string, line int, format string, args ...any) {
	*ds = append(*ds, diag.Diagnostic{Kind: kind, Path: path, Line: line, Message: fmt.Sprintf(format, args...)})
}
