package termcaps

import (
	"net/url"
	"path/filepath"
	"strings"
)

// StripHyperlinks removes OSC 8 sequences from s, keeping the text they
// wrap: what a terminal without hyperlinks gets (one that swallows OSC 8
// might hide the link's text with it).
func StripHyperlinks(s string) string {
	// Removing one sequence may join the text around it into another:
	// repeat until none is left (each pass shortens s).
	for strings.Contains(s, "\x1b]8;") {
		s = stripOnce(s)
	}
	return s
}

func stripOnce(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b]8;")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+4:]
		// The sequence ends at BEL or ST; an unterminated one is dropped
		// to the end.
		end := strings.IndexAny(rest, "\a\x1b")
		switch {
		case end < 0:
			return b.String()
		case rest[end] == '\a':
			s = rest[end+1:]
		case strings.HasPrefix(rest[end:], "\x1b\\"):
			s = rest[end+2:]
		default:
			s = rest[end:]
		}
	}
}

// Hyperlink wraps text in an OSC 8 link to target.
func Hyperlink(text, target string) string {
	return "\x1b]8;;" + target + "\x1b\\" + text + "\x1b]8;;\x1b\\"
}

// FileURL is the file:// address of path (relative to dir when not
// absolute).
func FileURL(path, dir string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path // a Windows drive letter
	}
	return u.String()
}
