//go:build !unix

package proccpu

import "time"

// Used is not measured here: it is always 0, and callers report wall time
// only.
func Used() time.Duration { return 0 }
