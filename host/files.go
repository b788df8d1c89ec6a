package host

import (
	"errors"
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
	// O_NONBLOCK too, in case the file was swapped for a pipe meanwhile.
	f, err := os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, abi.ErrNotFound
		}
		return nil, abi.ErrIO
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, abi.ErrIO
	}
	if !st.Mode().IsRegular() {
		return nil, abi.ErrNotFound
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
