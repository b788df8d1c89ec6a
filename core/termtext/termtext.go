package termtext

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/piwasm/pi/abi"
)

// Escape returns s as one line that is safe to print: every rune that is
// not [Visible], line feeds and tabs included, is written as a Go-style
// escape (\x1b, \n, \u202e, \U000e0041), and each byte of invalid UTF-8 as
// \xNN. Backslashes are left alone, so ordinary text (paths, regular
// expressions) reads unchanged; a literal "\x1b" in the input therefore
// looks like an escaped ESC, which is harmless.
func Escape(s string) string { return escape(s, false) }

// EscapeLines is [Escape] for multi-line text: line feeds, CR LF pairs and
// tabs are kept; a lone carriage return, which would let a line overwrite
// what came before it, is escaped.
func EscapeLines(s string) string { return escape(s, true) }

// Visible reports whether r shows as itself on a terminal: a letter, mark,
// number, punctuation, symbol or the ASCII space. Control characters (C0,
// DEL, C1), format characters (bidi embeddings, overrides and isolates,
// zero-width joiners and spaces, soft hyphen, byte-order mark, tag
// characters), line and paragraph separators, other space characters,
// private-use and unassigned runes are not, nor are the few letters that
// render as blank (Hangul fillers).
func Visible(r rune) bool { return abi.Printable(r) }

// safe reports whether s needs no escaping, so the common case (ASCII or
// ordinary Unicode text) allocates nothing.
func safe(s string, lines bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c >= 0x20 && c < 0x7f:
			case lines && (c == '\n' || c == '\t' || (c == '\r' && i+1 < len(s) && s[i+1] == '\n')):
			default:
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !Visible(r) {
			return false
		}
		i += n
	}
	return true
}

func escape(s string, lines bool) string {
	if safe(s, lines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			writeHex(&b, uint32(s[i]), 2)
		case Visible(r):
			b.WriteString(s[i : i+n])
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case lines && r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteString("\r\n")
			n = 2
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			b.WriteString(`\x`)
			writeHex(&b, uint32(r), 2)
		case r <= 0xffff:
			b.WriteString(`\u`)
			writeHex(&b, uint32(r), 4)
		default:
			b.WriteString(`\U`)
			writeHex(&b, uint32(r), 8)
		}
		i += n
	}
	return b.String()
}

func writeHex(b *strings.Builder, v uint32, width int) {
	h := strconv.FormatUint(uint64(v), 16)
	for i := len(h); i < width; i++ {
		b.WriteByte('0')
	}
	b.WriteString(h)
}
