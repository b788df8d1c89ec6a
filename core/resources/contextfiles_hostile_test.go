//go:build unix

package resources

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/piwasm/pi/core/diag"
)

// hostileRepo makes a cloned repository (a .git directory) at root/repo and
// a secret outside it; it returns the repository and the secret's path.
func hostileRepo(t *testing.T) (repo, secret string) {
	t.Helper()
	root := t.TempDir()
	repo = filepath.Join(root, "repo")
	secret = filepath.Join(root, "private", "secret.txt")
	writeTree(t, map[string]string{
		filepath.Join(repo, ".git") + "/":        "",
		filepath.Join(repo, "docs", "AGENTS.md"): "shared rules",
		filepath.Join(repo, "src", "keep.txt"):   "",
		secret:                                   "TOKEN=hunter2",
	})
	return repo, secret
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
}

func contents(files []ContextFile) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f.Content)
		b.WriteString("|")
	}
	return b.String()
}

// findDiag returns the first diagnostic about path, or nil.
func findDiag(ds []diag.Diagnostic, path string) *diag.Diagnostic {
	for i := range ds {
		if ds[i].Path == path {
			return &ds[i]
		}
	}
	return nil
}

// Issue 14, hole 3: a context file that links out of the project must not
// carry another file (a secret, /proc/self/environ) into the prompt,
// unless the project is trusted; links within the tree keep working.
func TestContextFileSymlinks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		target  func(repo, secret string) string
		dir     string // where AGENTS.md is, relative to repo
		trusted bool
		want    string // "" = skipped with a diagnostic
	}{
		{"relative link out of the project", func(r, s string) string { return filepath.Join("..", "private", "secret.txt") }, "", false, ""},
		{"absolute link out of the project", func(r, s string) string { return s }, "", false, ""},
		{"link out from a subdirectory", func(r, s string) string { return s }, "src", false, ""},
		{"link to /proc/self/environ", func(r, s string) string { return "/proc/self/environ" }, "", false, ""},
		{"trusted project follows a link out", func(r, s string) string { return s }, "", true, "TOKEN=hunter2"},
		{"relative link within the tree", func(r, s string) string { return filepath.Join("docs", "AGENTS.md") }, "", false, "shared rules"},
		{"absolute link within the tree", func(r, s string) string { return filepath.Join(r, "docs", "AGENTS.md") }, "", false, "shared rules"},
		{"link from a subdirectory up to the root's tree", func(r, s string) string { return filepath.Join("..", "docs", "AGENTS.md") }, "src", false, "shared rules"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo, secret := hostileRepo(t)
			target := tc.target(repo, secret)
			if strings.HasPrefix(target, "/proc/") && runtime.GOOS != "linux" {
				t.Skip("no /proc")
			}
			link := filepath.Join(repo, tc.dir, "AGENTS.md")
			symlink(t, target, link)
			cwd := filepath.Join(repo, "src")
			files, ds := findContextFiles(contextSearch{Cwd: cwd, Trusted: tc.trusted})
			got := ""
			for _, f := range files {
				if f.Path == link {
					got = f.Content
				}
			}
			if tc.want == "" {
				if got != "" || strings.Contains(contents(files), "hunter2") {
					t.Fatalf("a link out of the project was read: %q", contents(files))
				}
				d := findDiag(ds, link)
				if d == nil || d.Kind != KindSkipped || !strings.Contains(d.Message, "symbolic link") || !strings.Contains(d.Message, "trusted") {
					t.Fatalf("no skip diagnostic for %s: %+v", link, ds)
				}
				return
			}
			if got != tc.want {
				t.Fatalf("got %q, want %q (diagnostics %+v)", got, tc.want, ds)
			}
		})
	}
}

// Through Load, the project's trust decides: untrusted skips the link,
// --approve follows it.
func TestLoadContextFileLinkFollowsTrust(t *testing.T) {
	repo, secret := hostileRepo(t)
	symlink(t, secret, filepath.Join(repo, "AGENTS.md"))
	home := t.TempDir()
	for _, approve := range []bool{false, true} {
		l, err := Load(Config{Cwd: repo, Home: home, AgentDir: filepath.Join(home, "agent"), Approve: approve})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(contents(l.ContextFiles), "hunter2"); got != approve {
			t.Errorf("approve=%v: secret read=%v (diagnostics %+v)", approve, got, l.Diagnostics)
		}
	}
}

// The size cap: a file over it is left out with a warning naming the
// setting; maxPromptFileBytes in settings moves the cap.
func TestContextFileSizeCap(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "AGENTS.md")
	if err := os.WriteFile(p, []byte(strings.Repeat("x", int(defaultMaxPromptFileBytes))), 0o644); err != nil {
		t.Fatal(err)
	}
	files, ds := findContextFiles(contextSearch{Cwd: dir})
	if findDiag(ds, p) != nil || len(contents(files)) != int(defaultMaxPromptFileBytes)+1 {
		t.Fatalf("a file of exactly the cap was not read whole: %+v", ds)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("y")
	f.Close()
	files, ds = findContextFiles(contextSearch{Cwd: dir})
	d := findDiag(ds, p)
	if len(files) != 0 || d == nil || d.Kind != KindWarning || !strings.Contains(d.Message, "maxPromptFileBytes") {
		t.Fatalf("a file over the cap: files %d, diagnostics %+v", len(files), ds)
	}

	// Configured in the global settings.
	home := t.TempDir()
	agent := filepath.Join(home, "agent")
	proj := t.TempDir()
	writeTree(t, map[string]string{
		filepath.Join(agent, settingsFileName): `{"maxPromptFileBytes": 10}`,
		filepath.Join(proj, "AGENTS.md"):       "eleven byte",
	})
	l, err := Load(Config{Cwd: proj, Home: home, AgentDir: agent})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.ContextFiles) != 0 || findDiag(l.Diagnostics, filepath.Join(proj, "AGENTS.md")) == nil {
		t.Fatalf("maxPromptFileBytes 10 let an 11-byte file through: %+v", l.Diagnostics)
	}
	writeTree(t, map[string]string{filepath.Join(agent, settingsFileName): `{"maxPromptFileBytes": "big"}`})
	l, _ = Load(Config{Cwd: proj, Home: home, AgentDir: agent})
	if findDiag(l.Diagnostics, filepath.Join(agent, settingsFileName)) == nil || len(l.ContextFiles) != 1 {
		t.Fatalf("a bad maxPromptFileBytes is not reported, or changed the cap: %+v", l.Diagnostics)
	}
}

// Files that someone else could have written (git's safe-directory rule):
// in a directory writable by every user (with or without the sticky bit,
// like /tmp), writable by every user themselves, or owned by another user
// who is not root.
func TestContextFileForeignWritable(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no owner or mode bits")
	}
	for _, tc := range []struct {
		name    string
		setup   func(t *testing.T, dir, file string)
		trusted bool
		skipped bool
	}{
		{"ordinary", func(t *testing.T, dir, file string) {}, false, false},
		{"directory 0777", func(t *testing.T, dir, file string) { chmod(t, dir, 0o777) }, false, true},
		{"directory 1777 like /tmp", func(t *testing.T, dir, file string) { chmod(t, dir, 0o777|os.ModeSticky) }, false, true},
		{"file 0666", func(t *testing.T, dir, file string) { chmod(t, file, 0o666) }, false, true},
		{"group-writable is fine", func(t *testing.T, dir, file string) { chmod(t, dir, 0o775); chmod(t, file, 0o664) }, false, false},
		{"file owned by another user", func(t *testing.T, dir, file string) { chown(t, file, 4242) }, false, true},
		{"directory owned by another user", func(t *testing.T, dir, file string) { chown(t, dir, 4242) }, false, true},
		{"trusted project vouches for its own files", func(t *testing.T, dir, file string) { chown(t, file, 4242); chmod(t, dir, 0o777) }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "shared")
			file := filepath.Join(dir, "AGENTS.md")
			writeTree(t, map[string]string{file: "planted rules"})
			chmod(t, dir, 0o755)
			chmod(t, file, 0o644)
			tc.setup(t, dir, file)
			files, ds := findContextFiles(contextSearch{Cwd: dir, Trusted: tc.trusted})
			read := strings.Contains(contents(files), "planted rules")
			if read == tc.skipped {
				t.Fatalf("read=%v, want skipped=%v (diagnostics %+v)", read, tc.skipped, ds)
			}
			if d := findDiag(ds, file); tc.skipped && (d == nil || d.Kind != KindSkipped || !strings.Contains(d.Message, "someone else")) {
				t.Fatalf("no diagnostic for the skipped file: %+v", ds)
			}
		})
	}
}

// A trusted project vouches only for itself: a planted file above the
// project root (the /tmp/AGENTS.md of a shared machine) stays skipped.
func TestContextFileAboveTrustedProjectStaysChecked(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no owner or mode bits")
	}
	shared := filepath.Join(t.TempDir(), "tmp")
	repo := filepath.Join(shared, "repo")
	writeTree(t, map[string]string{
		filepath.Join(shared, "AGENTS.md"): "planted rules",
		filepath.Join(repo, ".git") + "/":  "",
		filepath.Join(repo, "AGENTS.md"):   "repo rules",
	})
	chmod(t, shared, 0o777|os.ModeSticky)
	files, ds := findContextFiles(contextSearch{Cwd: repo, Trusted: true})
	if got := contents(files); got != "repo rules|" {
		t.Fatalf("got %q (diagnostics %+v)", got, ds)
	}
}

func chmod(t *testing.T, p string, m os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, m); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, p string, uid int) {
	t.Helper()
	if os.Getuid() != 0 {
		t.Skip("changing a file's owner needs root")
	}
	if err := os.Chown(p, uid, -1); err != nil {
		t.Fatal(err)
	}
}

// Paths from configuration that are not regular files must not hang pi
// (a FIFO) or exhaust its memory (/dev/zero): settings section files,
// settings.json itself, and context files.
func TestNonRegularFilesFromConfiguration(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "section.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	settings := filepath.Join(dir, settingsFileName)
	writeTree(t, map[string]string{settings: `{"sections": {"fifo": {"file": "section.fifo"}, "zero": {"file": "/dev/zero"}, "big": {"file": "big.md"}}}`})
	if err := os.WriteFile(filepath.Join(dir, "big.md"), make([]byte, defaultMaxPromptFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan []diag.Diagnostic, 1)
	go func() {
		s, ds := loadGlobalSettings(settings, "")
		if len(s.Sections) != 0 {
			t.Errorf("sections read from a FIFO, a device or an oversized file: %+v", s.Sections)
		}
		done <- ds
	}()
	select {
	case ds := <-done:
		for _, name := range []string{"fifo", "zero", "big"} {
			found := false
			for _, d := range ds {
				found = found || strings.Contains(d.Message, `section "`+name+`" left out`)
			}
			if !found {
				t.Errorf("no diagnostic for section %s: %+v", name, ds)
			}
		}
	case <-time.After(time.Minute):
		t.Fatal("reading a settings section file from a FIFO hangs")
	}

	// settings.json and AGENTS.md that are FIFOs.
	proj := t.TempDir()
	for _, p := range []string{filepath.Join(proj, ".pi", settingsFileName), filepath.Join(proj, "AGENTS.md")} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loaded := make(chan *Loaded, 1)
	go func() {
		l, _ := Load(Config{Cwd: proj, Home: t.TempDir(), Approve: true})
		loaded <- l
	}()
	select {
	case l := <-loaded:
		if len(l.ContextFiles) != 0 {
			t.Errorf("a FIFO was read as a context file")
		}
	case <-time.After(time.Minute):
		t.Fatal("a FIFO settings.json or AGENTS.md hangs Load")
	}
}
