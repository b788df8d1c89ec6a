package lexers

import (
	"github.com/alecthomas/chroma/v2"
)

// HTML lexer.
// PI-PATCH: parsed on first use (lazy.go).
var HTML chroma.Lexer = lazyXML("embedded/html.xml", nil)
