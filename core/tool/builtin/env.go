package builtin

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/tool"
)

// Access is the kind of file access a Guard is asked about.
type Access uint8

const (
	// Read covers reading a file or listing a directory.
	Read Access = iota
	// Write covers creating, changing or replacing a file.
	Write
)

func (a Access) String() string {
	if a == Write {
		return "write"
	}
	return "read"
}

// FS is the file system the tools use. Every path it receives is absolute
// and already resolved (symlinks and `..` followed), so a fake or a sandbox
// sees exactly what is touched.
type FS interface {
	Stat(path string) (fs.FileInfo, error)
	Lstat(path string) (fs.FileInfo, error)
	Open(path string) (io.ReadCloser, error)
	ReadFile(path string) ([]byte, error)
	ReadDir(path string) ([]fs.DirEntry, error)
	// WriteFile replaces the file's content in place (keeping its mode when
	// it exists, else creating it with perm).
	WriteFile(path string, data []byte, perm fs.FileMode) error
	MkdirAll(path string, perm fs.FileMode) error
	// EvalSymlinks returns the path with every symlink followed.
	EvalSymlinks(path string) (string, error)
}

// OSFS is FS over the real file system.
type OSFS struct{}

func (OSFS) Stat(p string) (fs.FileInfo, error)        { return os.Stat(p) }
func (OSFS) Lstat(p string) (fs.FileInfo, error)       { return os.Lstat(p) }
func (OSFS) Open(p string) (io.ReadCloser, error)      { return os.Open(p) }
func (OSFS) ReadFile(p string) ([]byte, error)         { return os.ReadFile(p) }
func (OSFS) ReadDir(p string) ([]fs.DirEntry, error)   { return os.ReadDir(p) }
func (OSFS) MkdirAll(p string, perm fs.FileMode) error { return os.MkdirAll(p, perm) }
func (OSFS) EvalSymlinks(p string) (string, error)     { return filepath.EvalSymlinks(p) }
func (OSFS) WriteFile(p string, data []byte, perm fs.FileMode) error {
	return os.WriteFile(p, data, perm)
}

// Shell builds the process for one bash call. The bash tool sets stdin,
// stdout, stderr and process-group options on the returned command itself,
// so a wrapper only chooses the program, its arguments and its confinement.
type Shell interface {
	Command(ctx context.Context, script, dir string, env []string) (*exec.Cmd, error)
}

// BashShell runs scripts with `bash -c`. Path, when set, names the bash
// binary; otherwise bash is looked up on PATH.
type BashShell struct{ Path string }

// Command returns `bash -c script` in dir with env. It deliberately does not
// use exec.CommandContext: cancellation must kill the whole process group,
// which the bash tool does itself.
func (b BashShell) Command(_ context.Context, script, dir string, env []string) (*exec.Cmd, error) {
	bin := b.Path
	if bin == "" {
		p, err := exec.LookPath("bash")
		if err != nil {
			return nil, errors.New("bash is not installed or not on PATH")
		}
		bin = p
	}
	cmd := exec.Command(bin, "-c", script)
	cmd.Dir = dir
	cmd.Env = env
	return cmd, nil
}

// Env is everything the built-in tools need from their surroundings.
type Env struct {
	// Cwd is the directory relative paths resolve against.
	Cwd string
	// FS is the file system; nil means OSFS.
	FS FS
	// Guard, when set, is asked before every read or write with the
	// resolved path (for a file that does not exist yet: its nearest
	// existing parent resolved, plus the rest). A non-nil error refuses the
	// access and becomes the tool's error result.
	Guard func(op Access, resolvedPath string) error
	// Shell builds bash processes; nil means BashShell{}.
	Shell Shell
	// Env is added to the user's environment for bash (PI_SESSION_ID,
	// PI_SESSION_FILE, PI_PROVIDER, PI_MODEL, ...). Later entries win.
	Env []string
	// TempDir receives full bash output when it is over the limits; empty
	// means the system's temporary directory.
	TempDir string
	// Locks serialises writes per resolved path. Pass the session's set;
	// nil gives the tools of one Tools call a set of their own.
	Locks *tool.Locks
	// Home is what `~` expands to; empty means the user's home directory.
	Home string
	// CommandPrefix is put before every bash script on a line of its own
	// (settings shellCommandPrefix, e.g. "shopt -s expand_aliases").
	CommandPrefix string
}

// withDefaults fills in the nil members.
func (e Env) withDefaults() Env {
	if e.FS == nil {
		e.FS = OSFS{}
	}
	if e.Shell == nil {
		e.Shell = BashShell{}
	}
	if e.Locks == nil {
		e.Locks = &tool.Locks{}
	}
	if e.Cwd == "" {
		e.Cwd, _ = os.Getwd()
	}
	if e.TempDir == "" {
		e.TempDir = os.TempDir()
	}
	if e.Home == "" {
		e.Home, _ = os.UserHomeDir()
	}
	return e
}

// oddSpaces are the Unicode spaces models sometimes put in paths they copy.
var oddSpaces = strings.NewReplacer(
	"\u00a0", " ", "\u2000", " ", "\u2001", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ",
	"\u2005", " ", "\u2006", " ", "\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200a", " ",
	"\u202f", " ", "\u205f", " ", "\u3000", " ",
)

// absPath turns a path as the model wrote it into an absolute, cleaned
// path: a leading `@` is dropped, odd Unicode spaces become plain ones, `~`
// expands to the home directory, and relative paths join Cwd.
func (e Env) absPath(p string) string {
	p = oddSpaces.Replace(strings.TrimPrefix(p, "@"))
	switch {
	case p == "~":
		p = e.Home
	case strings.HasPrefix(p, "~/") || (filepath.Separator == '\\' && strings.HasPrefix(p, `~\`)):
		p = filepath.Join(e.Home, p[2:])
	}
	if p == "" {
		p = "."
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.Cwd, p)
	}
	return filepath.Clean(p)
}

// resolve follows symlinks in abs. For a path that does not exist, the
// nearest existing parent is resolved and the rest appended, so a new file
// is judged by where it will really be created.
func (e Env) resolve(abs string) string {
	var rest []string
	cur := abs
	for {
		if r, err := e.FS.EvalSymlinks(cur); err == nil {
			for i := len(rest) - 1; i >= 0; i-- {
				r = filepath.Join(r, rest[i])
			}
			return r
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = append(rest, filepath.Base(cur))
		cur = parent
	}
}

// open resolves p, asks the Guard, and returns the absolute path as the
// model named it (for messages) and the resolved path (for access).
func (e Env) open(op Access, p string) (abs, real string, err error) {
	abs = e.absPath(p)
	real = e.resolve(abs)
	if e.Guard != nil {
		if gerr := e.Guard(op, real); gerr != nil {
			return abs, real, gerr
		}
	}
	return abs, real, nil
}

// describeFSError words a file-system error for the model, naming the path
// as the model gave it.
func describeFSError(verb, p string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "Not found: " + p
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied: cannot " + verb + " " + p
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return "Cannot " + verb + " " + p + ": " + pe.Err.Error()
	}
	return "Cannot " + verb + " " + p + ": " + err.Error()
}
