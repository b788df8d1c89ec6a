package builtin

import (
	"io"
	"io/fs"
	"os"
)

// nonblock: Windows has no FIFOs in the file system to wait on.
const nonblock = 0

// openRegularFile opens p for reading and checks that it is a regular
// file.
func openRegularFile(p string) (io.ReadCloser, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = errNotRegular
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: err}
	}
	return f, nil
}
