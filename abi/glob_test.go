package abi

import (
	"path"
	"strings"
	"testing"
)

// matchRef is the obvious recursive matcher; the table-driven one must
// agree with it.
func matchRef(g, p []string) bool {
	if len(g) == 0 {
		return len(p) == 0
	}
	if g[0] == "**" {
		for i := 0; i <= len(p); i++ {
			if matchRef(g[1:], p[i:]) {
				return true
			}
			if i < len(p) && strings.HasPrefix(p[i], ".") {
				return false // "**" does not cross a hidden name
			}
		}
		return false
	}
	if len(p) == 0 {
		return false
	}
	if strings.HasPrefix(p[0], ".") && !strings.HasPrefix(g[0], ".") {
		return false
	}
	ok, _ := path.Match(g[0], p[0])
	return ok && matchRef(g[1:], p[1:])
}

func TestMatchGlobTable(t *testing.T) {
	for _, c := range []struct {
		g, p string
		want bool
	}{
		{".git/HEAD", ".git/HEAD", true},
		{"**/*.md", "README.md", true},
		{"**/*.md", "docs/a/b.md", true},
		{"docs/**", "docs", true},
		{"docs/**", "docs/a/b", true},
		{"docs/*", "docs/a/b", false},
		{"**/x.md", "a/b/y.md", false},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/x/y/b/z/c", true},
		{"a/**/b/**/c", "a/x/y/z/c", false},
		// Hidden names must be named (granting * is not granting .env).
		{"*", ".env", false},
		{"?env", ".env", false},
		{"[.]env", ".env", false},
		{"**", ".env", false},
		{"**/*", "config/.env", false},
		{"**/*.md", ".github/README.md", false},
		{"docs/**", "docs/.secret/x", false},
		{".env", ".env", true},
		{".*", ".env", true},
		{"config/.env", "config/.env", true},
		{"**/.env", "config/.env", true},
		{".github/**", ".github/workflows/ci.yml", true},
		{"*", "README.md", true},
	} {
		if got := MatchGlob(c.g, c.p); got != c.want {
			t.Errorf("MatchGlob(%q, %q) = %v", c.g, c.p, got)
		}
	}
}

func FuzzMatchGlob(f *testing.F) {
	f.Add("**/*.md", "a/b/c.md")
	f.Add("a/**/b/**", "a/b")
	f.Fuzz(func(t *testing.T, g, p string) {
		ge, pe := strings.Split(g, "/"), strings.Split(p, "/")
		if len(ge) > 8 || len(pe) > 12 {
			return // keep the reference matcher cheap
		}
		if got, want := matchElems(ge, pe), matchRef(ge, pe); got != want {
			t.Fatalf("MatchGlob(%q, %q) = %v, reference says %v", g, p, got, want)
		}
	})
}
