package builtin

import (
	"os"
	"path/filepath"
	"testing"
)

// OSFS.WriteFile leaves exactly the new content whether the file grows,
// shrinks, keeps its length or becomes empty, and it stays the same file
// (a hard link to it sees the new content; its mode is kept).
func TestWriteFileReplacesContent(t *testing.T) {
	for _, c := range []struct{ name, old, new string }{
		{"shorter", "line one\nline two\nline three\n", "line one\n"},
		{"longer", "short\n", "a much longer content\nover two lines\n"},
		{"same length", "line 1 of 01\n", "LINE 1 of 01\n"},
		{"empty", "something\n", ""},
		{"from empty", "", "now something\n"},
		{"new file", "", "created\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "f.txt")
			link := filepath.Join(dir, "link.txt")
			if c.name != "new file" {
				if err := os.WriteFile(p, []byte(c.old), 0o640); err != nil {
					t.Fatal(err)
				}
				if err := os.Link(p, link); err != nil {
					t.Skipf("no hard links here: %v", err)
				}
			}
			if err := (OSFS{}).WriteFile(p, []byte(c.new), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(p)
			if err != nil || string(got) != c.new {
				t.Fatalf("file holds %q (%v), want %q", got, err, c.new)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			want := os.FileMode(0o640)
			if c.name == "new file" {
				want = 0o600 &^ umask(t)
			} else if l, err := os.ReadFile(link); err != nil || string(l) != c.new {
				t.Errorf("the hard link holds %q (%v), want %q", l, err, c.new)
			}
			if fi.Mode().Perm() != want {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), want)
			}
		})
	}
}

// umask is the process's file creation mask, read from a file created
// with 0o777.
func umask(t *testing.T) os.FileMode {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o777)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return 0o777 &^ fi.Mode().Perm()
}
