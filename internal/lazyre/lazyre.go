package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call, panicking
// as regexp.MustCompile does if expr is invalid, and returns the same
// *regexp.Regexp on every call. It is safe for concurrent use.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
