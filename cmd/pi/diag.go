package main

import (
	"fmt"
	"io"

	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/hooks"
	"github.com/piwasm/pi/host"
)

// diagnostic is the one shape every command prints or emits as JSON,
// whatever stage found the problem.
type diagnostic struct {
	Kind      string `json:"kind"`
	Path      string `json:"path"`
	Line      int    `json:"line,omitempty"`
	Extension string `json:"extension,omitempty"`
	Message   string `json:"message"`
}

func fromResources(ds []resources.Diagnostic) []diagnostic {
	out := make([]diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, diagnostic{Kind: d.Kind, Path: d.Path, Line: d.Line, Message: d.Message})
	}
	return out
}

func fromHost(ds []host.Diagnostic) []diagnostic {
	out := make([]diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, diagnostic{Kind: d.Kind, Path: d.Path, Extension: d.Extension, Message: d.Message})
	}
	return out
}

func fromHooks(ds []hooks.Diagnostic) []diagnostic {
	out := make([]diagnostic, 0, len(ds))
	for _, d := range ds {
		out = append(out, diagnostic{Kind: d.Kind, Extension: d.Extension, Message: d.Message})
	}
	return out
}

// where names the place of a diagnostic: file:line, the file, or the
// extension when no file is concerned.
func (d diagnostic) where() string {
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

// printDiagnostics writes diagnostics to stderr-style output, one per line.
func printDiagnostics(w io.Writer, ds []diagnostic) {
	for _, d := range ds {
		if where := d.where(); where != "" {
			fmt.Fprintf(w, "pi: %s: %s: %s\n", d.Kind, esc(where), esc(d.Message))
		} else {
			fmt.Fprintf(w, "pi: %s: %s\n", d.Kind, esc(d.Message))
		}
	}
}

// listDiagnostics writes diagnostics as an indented list, for listings.
func listDiagnostics(w io.Writer, ds []diagnostic) {
	for _, d := range ds {
		if where := d.where(); where != "" {
			fmt.Fprintf(w, "  %s: %s: %s\n", d.Kind, esc(where), esc(d.Message))
		} else {
			fmt.Fprintf(w, "  %s: %s\n", d.Kind, esc(d.Message))
		}
	}
}
