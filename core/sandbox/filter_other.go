//go:build !linux

package sandbox

import "errors"

// compiledFilter: seccomp is Linux only, and no command is confined here.
func compiledFilter(netMode) ([]byte, error) {
	return nil, errors.New("seccomp filters are Linux only")
}
