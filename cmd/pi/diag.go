package main

import (
	"fmt"
	"io"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/settings"
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

// runDiagnostics are the diagnostics a non-interactive run prints on
// stderr: notes about settings pi does not act on appear only with
// --verbose (they are in `pi resources` and the UI's start-up notices
// always), so a settings.json shared with the TypeScript pi does not add
// lines to every scripted run; unknown and invalid keys always appear.
func runDiagnostics(ds []diag.Diagnostic, verbose bool) []diag.Diagnostic {
	if verbose {
		return ds
	}
	out := ds[:0:0]
	for _, d := range ds {
		if d.Kind != settings.KindIgnored {
			out = append(out, d)
		}
	}
	return out
}

// warner is where an extension hook's warning goes while a session runs:
// a notice of the interactive session when there is one (c.notice), else
// a "pi: warning:" line on stderr. The text may come from a guest, so it
// is escaped either way.
func (a *app) warner(c *common) func(string) {
	if c.notice != nil {
		return func(msg string) { c.notice("⚠ " + esc(msg)) }
	}
	return func(msg string) { fmt.Fprintf(a.stderr, "pi: warning: %s\n", esc(msg)) }
}
