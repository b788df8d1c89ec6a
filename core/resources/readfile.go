package resources

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// defaultMaxPromptFileBytes is the default cap on a file read into the
// prompt (context files, settings section files, SYSTEM.md, skills,
// templates): 1 MiB, far above any real instructions file and far below
// what would hurt. The settings key maxPromptFileBytes changes it for
// context files and section files.
const defaultMaxPromptFileBytes int64 = 1 << 20

// errTooLarge is the error of a file over its cap.
type errTooLarge struct{ max int64 }

func (e *errTooLarge) Error() string {
	return fmt.Sprintf("larger than %d bytes (the maxPromptFileBytes setting raises the cap)", e.max)
}

// errNotRegular is the error of a path that is not a regular file (a
// device such as /dev/zero, a FIFO, a socket, a directory).
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading without blocking on a FIFO and
// checks, on the descriptor actually opened, that it is a regular file.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := checkRegular(f)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

func checkRegular(f *os.File) (os.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	return fi, nil
}

// readCapped reads at most max bytes of f; a longer file is an
// *errTooLarge and is not read further (a size from Stat is not trusted:
// files under /proc report 0).
func readCapped(f *os.File, max int64) ([]byte, error) {
	if max <= 0 {
		max = defaultMaxPromptFileBytes
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, &errTooLarge{max: max}
	}
	return b, nil
}

// readTextMax reads a regular file of at most max bytes as text, stripping
// a leading byte order mark.
func readTextMax(path string, max int64) (string, error) {
	f, _, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := readCapped(f, max)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(string(b), bom), nil
}
