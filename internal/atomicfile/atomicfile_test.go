package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWriteReplacesContentsAndMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "new" {
		t.Fatalf("contents = %q, %v; want new", b, err)
	}
	if runtime.GOOS != "windows" {
		fi, _ := os.Stat(p)
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
		}
	}
	assertOnly(t, dir, "f.json")
}

func TestWriteFailureKeepsOldFileAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	// A directory in the way makes the rename fail after the temporary file
	// was written; nothing may be left behind.
	p := filepath.Join(dir, "taken")
	if err := os.MkdirAll(filepath.Join(p, "child"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Write(p, []byte("x"), 0o600)
	if err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	if fi, serr := os.Stat(p); serr != nil || !fi.IsDir() {
		t.Fatalf("the directory in the way was disturbed: %v", serr)
	}
	assertOnly(t, dir, "taken")
}

func TestWriteMissingDirectoryNamesPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no", "such", "f")
	err := Write(p, []byte("x"), 0o600)
	if err == nil {
		t.Fatal("Write into a missing directory succeeded")
	}
	if got := err.Error(); !contains(got, p) {
		t.Errorf("error %q does not name %s", got, p)
	}
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("directory holds %v, want exactly %v", got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("directory holds %v, want exactly %v", got, names)
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
