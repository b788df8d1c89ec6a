package termcaps

import (
	"strings"
	"testing"
)

func TestStripHyperlinks(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "plain"},
		{"see \x1b]8;;https://x.dev\x1b\\docs\x1b]8;;\x1b\\ now", "see docs now"},
		{"\x1b]8;id=7;https://x.dev\adocs\x1b]8;;\a", "docs"},
		{"\x1b[1m\x1b]8;;u\x1b\\b\x1b]8;;\x1b\\\x1b[0m", "\x1b[1mb\x1b[0m"},
		{"cut \x1b]8;;https://x", "cut "},
		{"odd \x1b]8;;u\x1b[0mtext", "odd \x1b[0mtext"},
		{"\x1b]1337;File=inline=1:AA\a", "\x1b]1337;File=inline=1:AA\a"},
	}
	for _, c := range cases {
		if got := StripHyperlinks(c.in); got != c.want {
			t.Errorf("StripHyperlinks(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFileURL(t *testing.T) {
	if got := FileURL("a b.go", "/p/q"); got != "file:///p/q/a%20b.go" {
		t.Errorf("got %q", got)
	}
	if got := Hyperlink("x", "file:///x"); got != "\x1b]8;;file:///x\x1b\\x\x1b]8;;\x1b\\" {
		t.Errorf("got %q", got)
	}
}

func FuzzStripHyperlinks(f *testing.F) {
	f.Add("see \x1b]8;;https://x.dev\x1b\\docs\x1b]8;;\x1b\\ now")
	f.Add("\x1b]8;id=7;u\adocs\x1b]8;;\a")
	f.Add("\x1b]8;\x1b]8;;\x1b")
	f.Add("\x1b\x1b]8;\a]8;") // stripping joins the rest into another
	f.Fuzz(func(t *testing.T, s string) {
		out := StripHyperlinks(s)
		if strings.Contains(out, "\x1b]8;") {
			t.Errorf("an OSC 8 sequence is left: %q → %q", s, out)
		}
		if len(out) > len(s) {
			t.Errorf("the output grew: %q → %q", s, out)
		}
	})
}
