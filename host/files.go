package host

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/piwasm/pi/abi"
)

// readGranted reads the project file rel (slash-separated, relative to the
// project root) if it matches one of globs both as written (after cleaning)
// and after resolving symbolic links, and lies inside the project root.
// It returns the content or one of the negative abi.Err* codes.
func readGranted(root string, globs []string, rel string, max int64) ([]byte, int64) {
	if root == "" || len(globs) == 0 {
		return nil, abi.ErrDenied
	}
	if rel == "" || !utf8.ValidString(rel) || strings.ContainsRune(rel, 0) || strings.Contains(rel, `\`) {
		return nil, abi.ErrInvalid
	}
	if path.IsAbs(rel) || filepath.IsAbs(rel) || filepath.VolumeName(rel) != "" {
		return nil, abi.ErrDenied
	}
	clean := path.Clean(rel)
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || !matchAny(globs, clean) {
		return nil, abi.ErrDenied
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(clean)))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, abi.ErrNotFound
		}
		return nil, abi.ErrIO
	}
	inside, err := filepath.Rel(root, real)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) || filepath.IsAbs(inside) {
		return nil, abi.ErrDenied
	}
	if !matchAny(globs, filepath.ToSlash(inside)) {
		return nil, abi.ErrDenied
	}
	// Check the kind before opening: opening a named pipe or a device can
	// block, and host functions run outside the call's deadline.
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, abi.ErrIO
		}
		return nil, abi.ErrNotFound
	}
	// The checks above were made on names; the directories along the path
	// may be swapped for symbolic links before the file is opened. So the
	// file is opened under the project root (os.Root never leaves it,
	// whatever the links say), and the descriptor opened must be the file
	// the checked path names afterwards too.
	dir, err := os.OpenRoot(root)
	if err != nil {
		return nil, abi.ErrIO
	}
	defer dir.Close()
	// O_NONBLOCK too, in case the file was swapped for a pipe meanwhile.
	f, err := dir.OpenFile(inside, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, abi.ErrNotFound
		}
		return nil, abi.ErrDenied
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, abi.ErrIO
	}
	if !st.Mode().IsRegular() {
		return nil, abi.ErrNotFound
	}
	again, err := filepath.EvalSymlinks(filepath.Join(root, filepath.FromSlash(clean)))
	if err != nil || again != real {
		return nil, abi.ErrDenied
	}
	if named, err := os.Stat(real); err != nil || !os.SameFile(st, named) {
		return nil, abi.ErrDenied
	}
	if st.Size() > max {
		return nil, abi.ErrIO
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(b)) > max {
		return nil, abi.ErrIO
	}
	return b, int64(len(b))
}

func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if abi.MatchGlob(g, p) {
			return true
		}
	}
	return false
}

// MaxManifestBytes caps the size of an extension.yaml.
const MaxManifestBytes = 1 << 20

// ReadRegularFile reads path, which must be a regular file of at most max
// bytes; errors of its own do not repeat the path. It never blocks on a named pipe or reads a device without end
// (/dev/zero): paths that come from configuration or a repository are read
// through it. A symbolic link is followed.
func ReadRegularFile(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", kindOf(st.Mode()))
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%d bytes, over the limit of %d", st.Size(), max)
	}
	// Read into a buffer of the file's size rather than letting io.ReadAll
	// (or bytes.Buffer) double its way there: modules are megabytes, and
	// the doubling left twice as much again as garbage in every process
	// that loads one. A file that grew since the stat is read to the end
	// (up to max) all the same.
	b := make([]byte, st.Size(), st.Size()+1)
	n, err := io.ReadFull(f, b)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		b = b[:n] // it shrank
	case err != nil:
		return nil, err
	default:
		rest, err := io.ReadAll(io.LimitReader(f, max+1-int64(n)))
		if err != nil {
			return nil, err
		}
		b = append(b, rest...)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("over the limit of %d bytes", max)
	}
	return b, nil
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}
