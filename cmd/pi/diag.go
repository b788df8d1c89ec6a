package main

import (
	"fmt"
	"io"

	"github.com/piwasm/pi/core/diag"
)

// Every stage (resources, the extension host, the hook dispatcher, the CLI
// itself) reports a diag.Diagnostic, so commands print and emit one shape.

// printDiagnostics writes diagnostics to stderr-style output, one per line.
func printDiagnostics(w io.Writer, ds []diag.Diagnostic) {
	for _, d := range ds {
		if where := d.Where(); where != "" {
			fmt.Fprintf(w, "pi: %s: %s: %s\n", d.Kind, esc(where), esc(d.Message))
		} else {
			fmt.Fprintf(w, "pi: %s: %s\n", d.Kind, esc(d.Message))
		}
	}
}

// listDiagnostics writes diagnostics as an indented list, for listings.
func listDiagnostics(w io.Writer, ds []diag.Diagnostic) {
	for _, d := range ds {
		if where := d.Where(); where != "" {
			fmt.Fprintf(w, "  %s: %s: %s\n", d.Kind, esc(where), esc(d.Message))
		} else {
			fmt.Fprintf(w, "  %s: %s\n", d.Kind, esc(d.Message))
		}
	}
}
