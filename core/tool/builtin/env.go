package builtin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/fspath"
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
// and already resolved (symlinks and `..` followed, by Resolve), so a fake
// or a sandbox sees exactly what is touched.
type FS interface {
	Stat(path string) (fs.FileInfo, error)
	Lstat(path string) (fs.FileInfo, error)
	// Open opens a regular file for reading. It must not block (a FIFO)
	// and must refuse anything but a regular file.
	Open(path string) (io.ReadCloser, error)
	// ReadFile reads a whole regular file of at most maxFileBytes.
	ReadFile(path string) ([]byte, error)
	ReadDir(path string) ([]fs.DirEntry, error)
	// WriteFile replaces the file's content in place (keeping its mode when
	// it exists, else creating it with perm). It refuses anything but a
	// regular file.
	WriteFile(path string, data []byte, perm fs.FileMode) error
	MkdirAll(path string, perm fs.FileMode) error
	// Resolve returns the path with every symlink followed, dangling ones
	// included; a missing tail is kept as written.
	Resolve(path string) string
}

// maxFileBytes bounds what ReadFile holds in memory (grep's files, an
// edit's file): a huge or endless file must not exhaust pi's memory.
const maxFileBytes = 128 << 20

// errNotRegular refuses FIFOs, devices and sockets: reading a FIFO would
// wait for a writer for ever and a device such as /dev/zero never ends.
var errNotRegular = errors.New("not a regular file (a FIFO, device or socket); the file tools read and write regular files only")

// errTooLarge refuses a file over maxFileBytes.
var errTooLarge = fmt.Errorf("larger than %d MB, more than the file tools hold in memory; use bash to look at it in parts", maxFileBytes>>20)

// OSFS is FS over the real file system. Its opening methods refuse a path
// with a symbolic link at any component (see core/fspath): the tools
// resolve a path, judge it, and open exactly what they judged.
type OSFS struct{}

func (OSFS) Stat(p string) (fs.FileInfo, error)      { return os.Stat(p) }
func (OSFS) Lstat(p string) (fs.FileInfo, error)     { return os.Lstat(p) }
func (OSFS) ReadDir(p string) ([]fs.DirEntry, error) { return fspath.ReadDir(p) }
func (OSFS) MkdirAll(p string, perm fs.FileMode) error {
	return fspath.MkdirAll(p, perm)
}
func (OSFS) Resolve(p string) string { return fspath.Resolve(p) }

// Open opens a regular file without waiting on a FIFO (O_NONBLOCK) and
// checks the type of what it opened, not of what a Stat saw before.
func (OSFS) Open(p string) (io.ReadCloser, error) {
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 {
		// Not even opened: opening some devices has effects.
		return nil, &fs.PathError{Op: "open", Path: p, Err: errNotRegular}
	}
	return openRegularFile(p)
}

func (o OSFS) ReadFile(p string) ([]byte, error) {
	f, err := o.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err == nil && len(data) > maxFileBytes {
		return nil, &fs.PathError{Op: "read", Path: p, Err: errTooLarge}
	}
	return data, err
}

// WriteFile opens (or creates) the file itself, checks that it is a
// regular file, and only then truncates and writes through the same
// descriptor.
//
// Truncating to nothing first is what makes ext4 (auto_da_alloc) and XFS
// start writing the file to disk when it is closed, and that costs an edit
// of a small file about half its time (BenchmarkEditSmall). Writing over
// the old content and cutting the tail would skip it, but after a power
// loss could leave neither the old file nor the new one (the new start
// with the old tail, or the old content cut to the new length), where the
// truncating write leaves one or the other, as the established harness's
// fs.writeFile does. Kept, on purpose.
func (OSFS) WriteFile(p string, data []byte, perm fs.FileMode) error {
	if fi, err := os.Lstat(p); err == nil && !fi.Mode().IsRegular() && fi.Mode()&fs.ModeSymlink == 0 && !fi.IsDir() {
		return &fs.PathError{Op: "open", Path: p, Err: errNotRegular}
	}
	f, err := fspath.Open(p, os.O_WRONLY|os.O_CREATE|nonblock, perm)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: p, Err: errNotRegular}
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
	// Visit, when set, is asked about every entry grep, find and ls come
	// across below the path they were given (which the Guard and the
	// permission gate judged), with the tool's name and the entry's
	// resolved path. A non-nil error leaves the entry out, and for a
	// directory everything below it. (The Guard is not asked about
	// entries: it records its refusals, and a search may pass thousands.)
	Visit func(tool, resolvedPath string) error
	// Recheck, when set, is asked about the path a tool resolved itself,
	// with the tool's name, before it opens it: the permission gate
	// resolved the path earlier, and a link swapped in between must not
	// take the call to a path a deny rule covers.
	Recheck func(tool, resolvedPath string) error
	// Shell builds bash processes; nil means BashShell{}.
	Shell Shell
	// Environ, when set, is the environment bash starts from instead of
	// pi's own (os.Environ): the caller leaves out what commands must not
	// see (provider keys) and adds what they should. It is called for
	// every command, so it may reflect the session's current state.
	Environ func() []string
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
	// KeepImageSize sends images the read tool attaches at their own size
	// (settings images.autoResize false); by default an image over
	// 2000×2000 pixels is scaled down to fit.
	KeepImageSize bool
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

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// absPath turns a path as the model wrote it into an absolute, cleaned
// path: a leading `@` is dropped, odd Unicode spaces become plain ones, `~`
// expands to the home directory, and relative paths join Cwd.
func (e Env) absPath(p string) string {
	p = strings.TrimPrefix(p, "@")
	if !isASCII(p) { // every odd space is outside ASCII; most paths are inside
		p = oddSpaces.Replace(p)
	}
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

// resolve follows symlinks in abs, dangling ones included. For a path
// that does not exist, the nearest existing parent is resolved and the
// rest appended, so a new file is judged by where it will really be
// created.
func (e Env) resolve(abs string) string { return e.FS.Resolve(abs) }

// open resolves p, asks the Guard, and returns the absolute path as the
// model named it (for messages) and the resolved path (for access).
func (e Env) open(tool string, op Access, p string) (abs, real string, err error) {
	abs = e.absPath(p)
	real = e.resolve(abs)
	if e.Guard != nil {
		if gerr := e.Guard(op, real); gerr != nil {
			return abs, real, gerr
		}
	}
	if e.Recheck != nil {
		if rerr := e.Recheck(tool, real); rerr != nil {
			return abs, real, rerr
		}
	}
	return abs, real, nil
}

// entryAllowed applies Visit to an entry a directory tool came across.
func (e Env) entryAllowed(tool, resolved string) bool {
	return e.Visit == nil || e.Visit(tool, resolved) == nil
}

// skippedNote tells the model that entries were left out, so an empty
// result is not read as "nothing there".
func skippedNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d path%s below were left out: the sandbox's read deny list or permission rules keep them from being read", n, plural(n))
}

// describeFSError words a file-system error for the model, naming the path
// as the model gave it.
func describeFSError(verb, p string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "Not found: " + p
	case errors.Is(err, fs.ErrPermission):
		return "Permission denied: cannot " + verb + " " + p
	case errors.Is(err, fspath.ErrChanged):
		return "Cannot " + verb + " " + p + ": " + fspath.ErrChanged.Error() + "; nothing was touched"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return "Cannot " + verb + " " + p + ": " + pe.Err.Error()
	}
	return "Cannot " + verb + " " + p + ": " + err.Error()
}
