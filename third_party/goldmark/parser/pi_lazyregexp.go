package parser

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
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
