package resources

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseArgs splits the argument text of a slash command the way a shell
// would, in one pass:
//
//   - Whitespace (any rune for which [unicode.IsSpace] holds, newlines
//     included) separates arguments outside quotes; runs of it count once.
//   - A `"` or `'` opens a quote only at the start of an argument, so `it's`
//     and `a"b` stay literal. The same character closes it. Inside the quote a
//     backslash directly before that quote character yields the character;
//     every other backslash is literal. `""` is an empty argument.
//   - After a closing quote the argument goes on up to the next whitespace;
//     those characters are taken literally (quotes there do not open).
//   - A quote that is never closed is literal text: the argument is read as if
//     the quote character were an ordinary one, and the rest splits normally.
//
// Bytes that are not valid UTF-8 are kept as they are. Text without quote
// characters splits exactly like [strings.Fields].
func ParseArgs(s string) []string {
	args := []string{}
	i := 0
	for {
		i = skipSpace(s, i)
		if i >= len(s) {
			return args
		}
		if q := s[i]; q == '"' || q == '\'' {
			if val, end, ok := quoted(s, i); ok {
				j := endOfWord(s, end)
				args = append(args, val+s[end:j])
				i = j
				continue
			}
		}
		j := endOfWord(s, i)
		args = append(args, s[i:j])
		i = j
	}
}

// quoted reads a quoted argument starting at s[start] (the quote character).
// It returns the unquoted value and the index just past the closing quote, or
// ok=false when the quote is never closed.
func quoted(s string, start int) (val string, end int, ok bool) {
	q := s[start]
	var b strings.Builder
	for i := start + 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i++
		case c == q:
			return b.String(), i + 1, true
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

func isArgSpace(r rune) bool { return unicode.IsSpace(r) }

func skipSpace(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		if !isArgSpace(r) {
			return i
		}
		i += n
	}
	return i
}

func endOfWord(s string, i int) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(r == utf8.RuneError && n <= 1) && isArgSpace(r) {
			return i
		}
		i += n
	}
	return i
}

// Substitute replaces argument placeholders in a template body in one
// left-to-right pass; inserted values are never scanned again. It
// recognises:
//
//	$N                     the N-th argument (all the digits: $10 is the tenth; $0 is empty)
//	$@, $ARGUMENTS         all arguments joined by one space
//	${@:N}                 arguments from the N-th on (N=0 counts as 1)
//	${@:N:L}               at most L arguments from the N-th
//	${N:-default}          the N-th argument, or default when it is missing or empty
//	${@:-default}          all arguments, or default when they join to ""
//	${ARGUMENTS:-default}  the same as ${@:-default}
//
// A default runs to the first `}` and is inserted literally. Everything else,
// including `${1}`, `${@}` and a lone `$`, is literal text. A missing argument
// is the empty string.
func Substitute(content string, args []string) string {
	if strings.IndexByte(content, '$') < 0 {
		return content
	}
	all := strings.Join(args, " ")
	var b strings.Builder
	b.Grow(len(content) + len(all))
	i := 0
	for {
		k := strings.IndexByte(content[i:], '$')
		if k < 0 {
			b.WriteString(content[i:])
			return b.String()
		}
		b.WriteString(content[i : i+k])
		i += k
		rep, n := placeholder(content[i:], args, all)
		if n == 0 {
			b.WriteByte('$')
			i++
			continue
		}
		b.WriteString(rep)
		i += n
	}
}

// placeholder matches a placeholder at the start of s (which begins with
// '$'). It returns the replacement and the number of bytes consumed, or n=0
// when nothing matches.
func placeholder(s string, args []string, all string) (string, int) {
	if len(s) < 2 {
		return "", 0
	}
	switch c := s[1]; {
	case c == '{':
		return braced(s, args, all)
	case c == '@':
		return all, 2
	case isDigit(c):
		d := digits(s[1:])
		return argAt(args, s[1:1+d]), 1 + d
	case strings.HasPrefix(s[1:], "ARGUMENTS"):
		return all, 1 + len("ARGUMENTS")
	}
	return "", 0
}

// braced handles the ${...} forms; s starts with "${".
func braced(s string, args []string, all string) (string, int) {
	body := s[2:]
	// Defaults: ${N:-x}, ${@:-x}, ${ARGUMENTS:-x}.
	var target string
	switch {
	case strings.HasPrefix(body, "@:-"):
		target = "@"
	case strings.HasPrefix(body, "ARGUMENTS:-"):
		target = "ARGUMENTS"
	default:
		if d := digits(body); d > 0 && strings.HasPrefix(body[d:], ":-") {
			target = body[:d]
		}
	}
	if target != "" {
		rest := body[len(target)+2:]
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return "", 0
		}
		def := rest[:end]
		n := 2 + len(target) + 2 + end + 1
		var val string
		if target == "@" || target == "ARGUMENTS" {
			val = all
		} else {
			val = argAt(args, target)
		}
		if val == "" {
			val = def
		}
		return val, n
	}
	// Slices: ${@:N} and ${@:N:L}.
	if !strings.HasPrefix(body, "@:") {
		return "", 0
	}
	p := body[2:]
	d := digits(p)
	if d == 0 {
		return "", 0
	}
	startStr := p[:d]
	p = p[d:]
	consumed := 2 + 2 + d
	lenStr := ""
	if strings.HasPrefix(p, ":") {
		l := digits(p[1:])
		if l == 0 {
			return "", 0
		}
		lenStr = p[1 : 1+l]
		p = p[1+l:]
		consumed += 1 + l
	}
	if !strings.HasPrefix(p, "}") {
		return "", 0
	}
	consumed++
	start := atoiClamp(startStr)
	if start > 0 {
		start--
	}
	if start >= len(args) {
		return "", consumed
	}
	end := len(args)
	if lenStr != "" {
		if l := atoiClamp(lenStr); l < end-start {
			end = start + l
		}
	}
	return strings.Join(args[start:end], " "), consumed
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// atoiClamp parses a run of ASCII digits, saturating at a large value
// instead of overflowing.
func atoiClamp(s string) int {
	const limit = 1 << 30
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
		if n > limit {
			return limit
		}
	}
	return n
}

// argAt returns the argument numbered by the digit string num (1-based), or
// "" when out of range.
func argAt(args []string, num string) string {
	n := atoiClamp(num)
	if n < 1 || n > len(args) {
		return ""
	}
	return args[n-1]
}
