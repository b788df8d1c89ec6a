package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct {
		name, in, one, lines string
	}{
		{"plain", "clock, network api.example.com", "clock, network api.example.com", "clock, network api.example.com"},
		{"unicode letters stay", "café — ok ✓ 日本", "café — ok ✓ 日本", "café — ok ✓ 日本"},
		{"backslash stays", `C:\dir\x1b`, `C:\dir\x1b`, `C:\dir\x1b`},
		{"cursor up and erase line", "clock\x1b[1A\x1b[2K", `clock\x1b[1A\x1b[2K`, `clock\x1b[1A\x1b[2K`},
		{"title change (OSC 0, BEL)", "\x1b]0;owned\x07", `\x1b]0;owned\x07`, `\x1b]0;owned\x07`},
		{"clipboard write (OSC 52, ST)", "\x1b]52;c;cm0gLXJmIH4=\x1b\\", `\x1b]52;c;cm0gLXJmIH4=\x1b\`, `\x1b]52;c;cm0gLXJmIH4=\x1b\`},
		{"fake ok line", "boom\nok  all tests passed", `boom\nok  all tests passed`, "boom\nok  all tests passed"},
		{"carriage return overwrites", "rm -rf /\rls", `rm -rf /\rls`, `rm -rf /\rls`},
		{"CR LF kept in lines", "a\r\nb", `a\r\nb`, "a\r\nb"},
		{"tab", "a\tb", `a\tb`, "a\tb"},
		{"DEL and NUL", "a\x7fb\x00", `a\x7fb\x00`, `a\x7fb\x00`},
		{"C1 CSI as a rune", "a\u009b2J", `a\u009b2J`, `a\u009b2J`},
		{"8-bit CSI byte (invalid UTF-8)", "a\x9b2J", `a\x9b2J`, `a\x9b2J`},
		{"truncated rune", "ok\xe2\x82", `ok\xe2\x82`, `ok\xe2\x82`},
		{"bidi override", "network evil.com\u202emoc.elgoog", `network evil.com\u202emoc.elgoog`, `network evil.com\u202emoc.elgoog`},
		{"bidi isolate", "\u2066x\u2069", `\u2066x\u2069`, `\u2066x\u2069`},
		{"zero width space and joiner", "HO\u200bME\u200d", `HO\u200bME\u200d`, `HO\u200bME\u200d`},
		{"byte order mark and soft hyphen", "\ufeffa\u00adb", `\ufeffa\u00adb`, `\ufeffa\u00adb`},
		{"line separator", "a\u2028b", `a\u2028b`, `a\u2028b`},
		{"no-break space", "a\u00a0b", `a\u00a0b`, `a\u00a0b`},
		{"Hangul filler", "a\u3164b", `a\u3164b`, `a\u3164b`},
		{"tag characters", "a\U000e0041", `a\U000e0041`, `a\U000e0041`},
		{"private use", "\ue000", `\ue000`, `\ue000`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Escape(tc.in); got != tc.one {
				t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.one)
			}
			if got := EscapeLines(tc.in); got != tc.lines {
				t.Errorf("EscapeLines(%q) = %q, want %q", tc.in, got, tc.lines)
			}
		})
	}
}

// checkShown fails unless every rune of out shows as itself (plus line
// feeds, tabs and CR LF pairs when lines is set).
func checkShown(t *testing.T, in, out string, lines bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("escape(%q) = %q: invalid UTF-8", in, out)
	}
	for i, r := range out {
		if Visible(r) {
			continue
		}
		if lines && (r == '\n' || r == '\t' || (r == '\r' && strings.HasPrefix(out[i:], "\r\n"))) {
			continue
		}
		t.Fatalf("escape(%q) = %q: rune %U at %d is not visible", in, out, r, i)
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[2J", "a\r\nb\rc", "\u202e", "\xff\xfe", "\U000e0041", "\u3164"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		one, lines := Escape(s), EscapeLines(s)
		checkShown(t, s, one, false)
		checkShown(t, s, lines, true)
		if strings.ContainsRune(one, '\n') {
			t.Fatalf("Escape(%q) kept a line feed", s)
		}
		if strings.Count(lines, "\n") != strings.Count(s, "\n") {
			t.Fatalf("EscapeLines(%q) changed the number of lines", s)
		}
		if safe(s, false) != (one == s) {
			t.Fatalf("Escape(%q) = %q, but safe says %v", s, one, safe(s, false))
		}
		if safe(s, true) != (lines == s) {
			t.Fatalf("EscapeLines(%q) = %q, but safe says %v", s, lines, safe(s, true))
		}
	})
}

func BenchmarkEscapeUnicode(b *testing.B) {
	s := strings.Repeat("Größe — naïve café, 日本語のテキスト ✓. ", 20)
	b.ReportAllocs()
	for b.Loop() {
		EscapeLines(s)
	}
}

func BenchmarkEscapePlain(b *testing.B) {
	s := strings.Repeat("an ordinary line of a diagnostic, nothing to escape. ", 20)
	b.ReportAllocs()
	for b.Loop() {
		Escape(s)
	}
}
