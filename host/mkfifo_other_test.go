//go:build !unix

package host

import "errors"

// mkfifo: Windows has no named pipes in the file system, so those tests skip.
func mkfifo(string) error { return errors.New("no named pipes in this file system") }
