package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/tool"
)

func numbered(n, width int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		line := fmt.Sprintf("line %d", i)
		if width > len(line) {
			line += strings.Repeat(".", width-len(line))
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

func TestRead(t *testing.T) {
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00", 20)
	cases := []struct {
		name, args string
	}{
		{"small", `{"path":"small.txt"}`},
		{"at_prefix", `{"path":"@small.txt"}`},
		{"tilde", `{"path":"~/small.txt"}`},
		{"offset_limit", `{"path":"small.txt","offset":2,"limit":1}`},
		{"offset_string_coerced", `{"path":"small.txt","offset":"3"}`},
		{"offset_last_line", `{"path":"small.txt","offset":3}`},
		{"offset_past_end", `{"path":"small.txt","offset":4}`},
		{"limit_zero", `{"path":"small.txt","limit":0}`},
		{"empty", `{"path":"empty.txt"}`},
		{"no_final_newline", `{"path":"nonl.txt"}`},
		{"lines_2000", `{"path":"l2000.txt"}`},
		{"lines_2001", `{"path":"l2001.txt"}`},
		{"lines_2001_continue", `{"path":"l2001.txt","offset":2001}`},
		{"bytes_limit", `{"path":"wide.txt"}`},
		{"bytes_exact", `{"path":"exact.txt"}`},
		{"first_line_too_long", `{"path":"long first.txt"}`},
		{"offset_line_too_long", `{"path":"long first.txt","offset":2}`},
		{"crlf", `{"path":"crlf.txt"}`},
		{"bom", `{"path":"bom.txt"}`},
		{"invalid_utf8", `{"path":"latin1.txt"}`},
		{"binary", `{"path":"bin.dat"}`},
		{"png", `{"path":"pic.dat"}`},
		{"missing", `{"path":"nope.txt"}`},
		{"directory", `{"path":"sub"}`},
		{"symlink", `{"path":"link.txt"}`},
	}
	env, dir := newEnv(t)
	files(t, dir, map[string]string{
		"small.txt":      "one\ntwo\nthree\n",
		"empty.txt":      "",
		"nonl.txt":       "a\nb",
		"l2000.txt":      numbered(2000, 0),
		"l2001.txt":      numbered(2001, 0),
		"wide.txt":       numbered(1000, 99),
		"exact.txt":      strings.Repeat(strings.Repeat("e", 1023)+"\n", 50),
		"long first.txt": strings.Repeat("z", 60*1024) + "\nshort\n" + strings.Repeat("w", 51*1024) + "\n",
		"crlf.txt":       "a\r\nb\r\n",
		"bom.txt":        "\ufeffhello\n",
		"latin1.txt":     "caf\xe9 cr\xe8me\n",
		"bin.dat":        "ELF\x00\x01\x02binary",
		"pic.dat":        png,
		"sub/":           "",
		"link.txt":       "->small.txt",
	})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := render(call(t, env, "read", c.args), dir)
			if len(out) > 4000 {
				// Keep golden files readable: the head, the tail and the size.
				out = fmt.Sprintf("%s\n...[%d bytes]...\n%s", out[:300], len(out), out[len(out)-700:])
			}
			golden(t, "read/"+c.name, out)
		})
	}
}

// TestReadLargeFileBoundedMemory checks that a read of a big file stops
// storing lines once past the limits (the selector keeps at most one line
// over them).
func TestReadLargeFileBoundedMemory(t *testing.T) {
	s := lineSelector{start: 0, end: 1 << 62, maxLines: 2000, maxBytes: 50 * 1024}
	chunk := []byte(strings.Repeat("0123456789\n", 10000))
	for i := 0; i < 100; i++ {
		s.feed(chunk)
	}
	s.finish()
	if s.nStored > 2001 || len(s.stored) > 50*1024+11 || s.totalLines() != 1_000_000 || s.selLines != 1_000_000 {
		t.Fatalf("stored %d lines in %d bytes, total %d, selected %d", s.nStored, len(s.stored), s.totalLines(), s.selLines)
	}
}

// faultFS fails chosen operations, for errors a root test run cannot
// produce with file modes.
type faultFS struct {
	OSFS
	fail map[string]error // by base name
}

func (f faultFS) err(p string) error { return f.fail[filepath.Base(p)] }
func (f faultFS) Open(p string) (io.ReadCloser, error) {
	if err := f.err(p); err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return f.OSFS.Open(p)
}
func (f faultFS) ReadFile(p string) ([]byte, error) {
	if err := f.err(p); err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return f.OSFS.ReadFile(p)
}
func (f faultFS) ReadDir(p string) ([]fs.DirEntry, error) {
	if err := f.err(p); err != nil {
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return f.OSFS.ReadDir(p)
}
func (f faultFS) WriteFile(p string, d []byte, m fs.FileMode) error {
	if err := f.err(p); err != nil {
		return &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return f.OSFS.WriteFile(p, d, m)
}

func TestPermissionDenied(t *testing.T) {
	env, dir := newEnv(t)
	files(t, dir, map[string]string{"secret.txt": "x\n", "locked/a": "a"})
	env.FS = faultFS{fail: map[string]error{"secret.txt": fs.ErrPermission, "locked": fs.ErrPermission}}
	for _, c := range []struct{ tool, args, want string }{
		{"read", `{"path":"secret.txt"}`, "Permission denied: cannot read secret.txt"},
		{"edit", `{"path":"secret.txt","edits":[{"oldText":"x","newText":"y"}]}`, "Permission denied: cannot edit secret.txt"},
		{"write", `{"path":"secret.txt","content":"y"}`, "Permission denied: cannot write secret.txt"},
		{"ls", `{"path":"locked"}`, "Permission denied: cannot list locked"},
	} {
		r := call(t, env, c.tool, c.args)
		if !r.IsError || r.Text() != c.want {
			t.Errorf("%s: %v %q", c.tool, r.IsError, r.Text())
		}
	}
	// A real unreadable file, where the test does not run as root.
	if os.Geteuid() != 0 {
		env.FS = nil
		env = Env{Cwd: dir, Home: dir, TempDir: t.TempDir()}
		if err := os.Chmod(filepath.Join(dir, "secret.txt"), 0); err != nil {
			t.Fatal(err)
		}
		if r := call(t, env, "read", `{"path":"secret.txt"}`); !r.IsError || !strings.Contains(r.Text(), "Permission denied") {
			t.Errorf("real chmod 0: %q", r.Text())
		}
	}
}

func TestGuardSeesResolvedPaths(t *testing.T) {
	env, dir := newEnv(t)
	outside := t.TempDir()
	outsideReal, _ := filepath.EvalSymlinks(outside)
	files(t, outside, map[string]string{"secret": "s\n"})
	files(t, dir, map[string]string{
		"ok.txt": "fine\n",
		"esc":    "->" + filepath.Join(outside, "secret"),
		"escdir": "->" + outside,
	})
	var seen []string
	env.Guard = func(op Access, p string) error {
		seen = append(seen, op.String()+" "+strings.ReplaceAll(strings.ReplaceAll(p, outsideReal, "$OUT"), dir, "$DIR"))
		if strings.HasPrefix(p, outsideReal) {
			return errors.New("outside the project: " + p)
		}
		return nil
	}
	cases := []struct {
		tool, args string
		denied     bool
	}{
		{"read", `{"path":"ok.txt"}`, false},
		{"read", `{"path":"esc"}`, true},
		{"read", `{"path":"sub/../esc"}`, true},
		{"write", `{"path":"escdir/new/file.txt","content":"x"}`, true},
		{"write", `{"path":"fresh/deeper/file.txt","content":"x"}`, false},
		{"edit", `{"path":"esc","edits":[{"oldText":"s","newText":"t"}]}`, true},
		{"ls", `{"path":"escdir"}`, true},
		{"grep", `{"pattern":"s","path":"escdir"}`, true},
		{"find", `{"pattern":"*","path":"escdir"}`, true},
	}
	for _, c := range cases {
		r := call(t, env, c.tool, c.args)
		if c.denied != (r.IsError && strings.Contains(r.Text(), "outside the project")) {
			t.Errorf("%s %s: denied=%v, got %q", c.tool, c.args, c.denied, r.Text())
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Fatal("a denied write created directories")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s\n" {
		t.Fatal("a denied edit changed the file")
	}
	golden(t, "guard_seen", strings.Join(seen, "\n")+"\n")
}

// Reading a small file allocates in proportion to the file, not blocks
// sized for large ones: a session reads many small files, and a 256 KiB
// buffer per read was most of what a 60-turn session allocated (then the
// 8 KiB head, sized to the file now).
func TestReadSmallFileAllocatesLittle(t *testing.T) {
	env, dir := newEnv(t)
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d of 01: some ordinary text\n", i)
	}
	files(t, dir, map[string]string{"f01.txt": b.String()})
	var ms0, ms1 runtime.MemStats
	const reads = 20
	runtime.ReadMemStats(&ms0)
	for range reads {
		if r := call(t, env, "read", `{"path":"f01.txt"}`); r.IsError {
			t.Fatal(r.Content[0].Text)
		}
	}
	runtime.ReadMemStats(&ms1)
	if per := (ms1.TotalAlloc - ms0.TotalAlloc) / reads; per > 18<<10 {
		t.Errorf("a read of a %d-byte file allocates %d bytes", b.Len(), per)
	} else {
		t.Logf("a read of a %d-byte file allocates %d bytes", b.Len(), per)
	}
}

// A read of a small file allocates a few objects, not one per line: the
// lines are kept in one buffer.
func TestReadSmallFileAllocatesFewObjects(t *testing.T) {
	env, dir := newEnv(t)
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d of 01: some ordinary text\n", i)
	}
	files(t, dir, map[string]string{"f01.txt": b.String()})
	tl := toolByName(t, env, "read")
	args, err := tl.Prepare([]byte(`{"path":"f01.txt"}`))
	if err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(20, func() {
		if r, err := tl.Run(context.Background(), tool.Call{Name: "read", Args: args}, nil); err != nil || r.IsError {
			t.Fatal(err, r.Text())
		}
	})
	t.Logf("a read of a 20-line file: %v allocations", n)
	if n > 30 {
		t.Errorf("a read of a 20-line file makes %v allocations (a string per line would be 20 more)", n)
	}
}

// Bytes that are not UTF-8 are shown as U+FFFD, one per byte, in any line.
func TestReadInvalidUTF8(t *testing.T) {
	env, dir := newEnv(t)
	files(t, dir, map[string]string{"f.txt": "ok\nbad \xff\xfe end\n\xc3\n\xe2\x82 é\nlast"})
	r := call(t, env, "read", `{"path":"f.txt"}`)
	if want := "ok\nbad \ufffd\ufffd end\n\ufffd\n\ufffd\ufffd é\nlast"; r.IsError || r.Text() != want {
		t.Errorf("read %q, want %q", r.Text(), want)
	}
}
