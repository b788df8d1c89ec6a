package jsonstr

import (
	"unicode/utf8"
	"unsafe"
)

// Strings dominate what pi writes, so the scan looks at eight bytes at a
// time (SWAR) and drops to a byte loop only around the bytes that need
// attention.
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// Load64 reads the 8 bytes at p[i:] (the caller checks bounds) in one load.
func Load64(p []byte, i int) uint64 {
	return *(*uint64)(unsafe.Pointer(unsafe.SliceData(p[i : i+8])))
}

func load64s(s string, i int) uint64 {
	return *(*uint64)(unsafe.Pointer(unsafe.StringData(s[i : i+8])))
}

// Special reports whether any byte of x is a quote, a backslash or a
// control character; with high set, also any byte >= 0x80.
func Special(x uint64, high bool) bool {
	q := x ^ (swarLo * '"')
	bs := x ^ (swarLo * '\\')
	m := ((x - swarLo*0x20) & ^x) | ((q - swarLo) & ^q) | ((bs - swarLo) & ^bs)
	if high {
		m |= x
	}
	return m&swarHi != 0
}

const hexDigits = "0123456789abcdef"

// Append appends s as a JSON string the way encoding/json writes it without
// HTML escaping: quotes, backslashes and control characters escaped (\b,
// \f, \n, \r and \t by name), invalid UTF-8 replaced by \ufffd, U+2028 and
// U+2029 escaped.
func Append(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if i+8 <= len(s) && !Special(load64s(s, i), true) {
			i += 8
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
