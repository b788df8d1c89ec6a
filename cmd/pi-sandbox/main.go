// Command pi-sandbox is pi's confining helper on its own: pi starts it for
// every sandboxed bash call (pi-sandbox __sandbox-exec SPEC -- PROGRAM
// ARGS...), it confines itself with the policy and executes PROGRAM. It
// links only package confine (no net, no cgo: a static binary), so it
// starts in a fraction of the time pi does. `make build` builds it next to
// bin/pi with the same build stamp; see core/sandbox/helperbin.go.
package main

import (
	"fmt"
	"os"

	"github.com/piwasm/pi/core/sandbox/confine"
)

// The helper runs in init, not main: the runtime runs init functions on
// the process's first thread with the goroutine locked to it, which is
// what confinement needs (see confine.RunFromInit), without the extra
// thread runtime.LockOSThread would start. Every package this one imports
// is initialised by then.
func init() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case confine.HelperArg:
			os.Exit(confine.RunFromInit(os.Args[2:], os.Stderr))
		case confine.SelfNSArg:
			// In the namespaces the entry point created (entry.go).
			os.Exit(confine.RunSelfNS(os.Args[2:], entryState(), os.Stderr))
		}
	}
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-stamp" {
		// The build stamp a policy must carry (bench/side.sh starts the
		// helper on its own with it).
		fmt.Println(confine.BuildStamp())
		return
	}
	fmt.Fprintf(os.Stderr, "pi-sandbox: pi's confining helper; pi starts it as: pi-sandbox %s SPEC -- PROGRAM [ARGS...]\n", confine.HelperArg)
	os.Exit(2)
}
