// Package termtext makes untrusted text safe to show on a terminal.
//
// Text that came from a file, an extension or a provider may hold control
// characters (ESC sequences that move the cursor, change the window title or
// write the clipboard), carriage returns that overwrite a line, or invisible
// format characters (bidi overrides, zero-width runes) that make a line read
// differently from what it contains. Every place pi prints such text for a
// person goes through [Escape] or [EscapeLines], which show those runes as
// visible escapes instead. Files and requests keep the exact bytes; only the
// display is escaped.
package termtext
