package yaml

// Added for pi (see PI-PATCH.md at the module's root): the package's
// regular expressions are compiled on first use instead of in package
// initialisation, which every process that links the package pays for.

import (
	"regexp"
	"sync"
)

// lazyRegexp returns a function that compiles expr on its first call and
// returns the same *regexp.Regexp on every call.
func lazyRegexp(expr string) func() *regexp.Regexp {
	// Not sync.OnceValue: this module's go.mod asks for Go 1.16.
	var once sync.Once
	var re *regexp.Regexp
	return func() *regexp.Regexp {
		once.Do(func() { re = regexp.MustCompile(expr) })
		return re
	}
}
