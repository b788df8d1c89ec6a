package prompt

import "strings"

// textBuf is the buffer the prompt is built in. It is a strings.Builder:
// Grow gets memory without clearing it first and String shares the bytes,
// which together beat a plain byte slice for a buffer written once.
type textBuf struct{ strings.Builder }
