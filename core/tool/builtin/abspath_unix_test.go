//go:build unix

package builtin

import "testing"

// absPath reads a path as the model wrote it: a leading @ dropped, the odd
// Unicode spaces models copy into paths made plain (a path in ASCII skips
// that step, since every odd space is outside it), ~ expanded, a relative
// path joined to the working directory.
func TestAbsPath(t *testing.T) {
	e := Env{Cwd: "/w/proj", Home: "/home/u"}
	for in, want := range map[string]string{
		"f01.txt":                 "/w/proj/f01.txt",
		"@src/a.go":               "/w/proj/src/a.go",
		"my\u00a0notes.md":        "/w/proj/my notes.md",
		"a\u202fb/c\u3000d.txt":   "/w/proj/a b/c d.txt",
		"é/\u2003x":               "/w/proj/é/ x",
		"~":                       "/home/u",
		"~/x/../y":                "/home/u/y",
		"":                        "/w/proj",
		"/abs//path/./f":          "/abs/path/f",
		"@~/notes\u00a0draft.txt": "/home/u/notes draft.txt",
	} {
		if got := e.absPath(in); got != want {
			t.Errorf("absPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkAbsPath is a read's or an edit's path, as models write it.
func BenchmarkAbsPath(b *testing.B) {
	e := Env{Cwd: "/tmp/w/proj", Home: "/home/u"}
	b.ReportAllocs()
	for b.Loop() {
		_ = e.absPath("src/f01.txt")
	}
}
