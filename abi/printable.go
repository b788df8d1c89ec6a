package abi

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Printable reports whether r shows as itself on a terminal: the runes
// manifest text (names, descriptions, which pi prints) may hold. It is
// defined here, not in core/termtext, whose Visible it is, because abi,
// which guests compile, imports nothing of pi's (ARCHITECTURE.md).
func Printable(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0x20 && r < 0x7f
	}
	switch r {
	case 0x115f, 0x1160, 0x3164, 0xffa0: // Hangul fillers: letters that draw nothing
		return false
	}
	return unicode.IsPrint(r)
}

// escapeRune spells the first rune of s (or its first byte, when that is
// not UTF-8) as a Go escape, for an error message.
func escapeRune(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	switch {
	case n == 0:
		return ""
	case r == utf8.RuneError && n == 1:
		return fmt.Sprintf(`\x%02x`, s[0])
	case r == '\n':
		return `\n`
	case r == '\r':
		return `\r`
	case r == '\t':
		return `\t`
	case r < 0x80:
		return fmt.Sprintf(`\x%02x`, r)
	case r <= 0xffff:
		return fmt.Sprintf(`\u%04x`, r)
	}
	return fmt.Sprintf(`\U%08x`, r)
}
