//go:build unix

package fspath

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestResolveFollowsDanglingLinks(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	outside := filepath.Join(dir, "outside")
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	os.MkdirAll(outside, 0o755)
	// notes.md -> ../outside/bashrc (missing), rel -> chain -> abs
	os.Symlink("../outside/bashrc", filepath.Join(ws, "notes.md"))
	os.Symlink(filepath.Join(outside, "x", "y"), filepath.Join(ws, "abs"))
	os.Symlink("abs", filepath.Join(ws, "chain"))
	os.Symlink("loop", filepath.Join(ws, "loop"))
	for in, want := range map[string]string{
		filepath.Join(ws, "notes.md"):          filepath.Join(outside, "bashrc"),
		filepath.Join(ws, "chain", "z"):        filepath.Join(outside, "x", "y", "z"),
		filepath.Join(ws, "new", "file"):       filepath.Join(ws, "new", "file"),
		filepath.Join(ws, "sub", "..", "file"): filepath.Join(ws, "file"),
	} {
		if got := Resolve(in); got != want {
			t.Errorf("Resolve(%s) = %s, want %s", in, got, want)
		}
	}
	_ = Resolve(filepath.Join(ws, "loop")) // must return
}

func TestOpenRefusesLinks(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(dir, "real"), 0o755)
	os.WriteFile(filepath.Join(dir, "real", "f"), []byte("x"), 0o644)
	os.Symlink("real", filepath.Join(dir, "link"))
	os.Symlink("real/f", filepath.Join(dir, "flink"))
	f, err := Open(filepath.Join(dir, "real", "f"), os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, p := range []string{filepath.Join(dir, "link", "f"), filepath.Join(dir, "flink")} {
		if _, err := Open(p, os.O_RDONLY, 0); !errors.Is(err, ErrChanged) {
			t.Errorf("Open(%s): %v, want ErrChanged", p, err)
		}
		if _, err := walkOpen(p, os.O_RDONLY, 0); !errors.Is(err, ErrChanged) {
			t.Errorf("walkOpen(%s): %v, want ErrChanged", p, err)
		}
	}
	if err := MkdirAll(filepath.Join(dir, "link", "a", "b"), 0o755); !errors.Is(err, ErrChanged) {
		t.Errorf("MkdirAll through a link: %v", err)
	}
	if err := MkdirAll(filepath.Join(dir, "real", "a", "b"), 0o755); err != nil {
		t.Error(err)
	}
	if ents, err := ReadDir(filepath.Join(dir, "real")); err != nil || len(ents) != 2 || ents[0].Name() != "a" {
		t.Errorf("ReadDir: %v %v", ents, err)
	}
	if _, err := ReadDir(filepath.Join(dir, "link")); !errors.Is(err, ErrChanged) {
		t.Errorf("ReadDir through a link: %v", err)
	}
}

// Resolve answers as the component-by-component walk does for every kind
// of path: with no link (where Linux answers in one openat2), a link in
// the middle or at the end, a dangling link, a missing tail, a file used
// as a directory, and a FIFO (opened by neither).
func TestResolveAsTheWalk(t *testing.T) {
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(filepath.Join(ws, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(ws, "a", "b", "f.txt"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(ws, "a"), filepath.Join(ws, "la"))
	os.Symlink("f.txt", filepath.Join(ws, "a", "b", "lf"))
	os.Symlink("missing", filepath.Join(ws, "dangling"))
	fifo := filepath.Join(ws, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Logf("no FIFO: %v", err)
	}
	walk := func(p string) string {
		for range maxLinks {
			next, again := resolveOnce(p)
			if !again {
				return next
			}
			p = next
		}
		return p
	}
	for _, in := range []string{
		filepath.Join(ws, "a", "b", "f.txt"),
		filepath.Join(ws, "a", "b"),
		ws,
		"/",
		filepath.Join(ws, "la", "b", "f.txt"),
		filepath.Join(ws, "a", "b", "lf"),
		filepath.Join(ws, "dangling"),
		filepath.Join(ws, "a", "new", "file"),
		filepath.Join(ws, "a", "b", "f.txt", "under"),
		fifo,
	} {
		if got, want := Resolve(in), walk(in); got != want {
			t.Errorf("Resolve(%s) = %s, the walk says %s", in, got, want)
		}
	}
	if got, want := Resolve(filepath.Join(ws, "la", "b", "f.txt")), filepath.Join(ws, "a", "b", "f.txt"); got != want {
		t.Errorf("through a link: %s, want %s", got, want)
	}
}

// BenchmarkResolve resolves a file five directories down with no link on
// the way, as the read and edit tools do for each call.
func BenchmarkResolve(b *testing.B) {
	dir, _ := filepath.EvalSymlinks(b.TempDir())
	p := filepath.Join(dir, "w", "proj", "src", "f01.txt")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte("x"), 0o644)
	b.ReportAllocs()
	for b.Loop() {
		if Resolve(p) != p {
			b.Fatal("resolved elsewhere")
		}
	}
}
