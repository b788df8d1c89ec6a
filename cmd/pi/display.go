package main

import (
	"errors"
	"io"
	"strings"

	"github.com/piwasm/pi/core/termtext"
)

// esc shows one line of text that came from a file, an extension or a
// provider: control characters, line breaks and invisible runes become
// visible escapes, so such text cannot move the cursor, retitle the
// window, write the clipboard or fake a line of pi's own output.
func esc(s string) string { return termtext.Escape(s) }

// escAll is esc over a list.
func escAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = esc(s)
	}
	return out
}

// display returns multi-line text (a prompt, a reply, an expanded input)
// ready for stdout: escaped, keeping line breaks and tabs, when stdout is
// a terminal; byte for byte otherwise, so that redirected output and pipes
// get exactly what the model or the request gets.
func (a *app) display(s string) string {
	if a.outTerminal {
		return termtext.EscapeLines(s)
	}
	return s
}

// linesError is an error whose line breaks pi wrote itself (a list of
// problems, a hint on the next line). exitCode keeps those breaks and
// escapes each line; every other error is printed as one escaped line.
type linesError struct{ lines []string }

func (e *linesError) Error() string { return strings.Join(e.lines, "\n") }

func errLines(lines ...string) error { return &linesError{lines: lines} }

// errorText is err's message ready for stderr.
func errorText(err error) string {
	full := err.Error()
	var le *linesError
	if !errors.As(err, &le) || !strings.HasSuffix(full, le.Error()) {
		return esc(full)
	}
	// Context wrapped around the lines ("install x: ...") stays on the
	// first line.
	prefix := full[:len(full)-len(le.Error())]
	return esc(prefix) + strings.Join(escAll(le.lines), "\n")
}

// displayWriter is stdout for multi-line text written in one piece (a JSON
// value shown to a person): each write goes through display.
func (a *app) displayWriter() io.Writer {
	if !a.outTerminal {
		return a.stdout
	}
	return escapingWriter{a.stdout}
}

type escapingWriter struct{ w io.Writer }

func (e escapingWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(e.w, termtext.EscapeLines(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
