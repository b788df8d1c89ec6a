package sandbox_test

import (
	"os"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
)

// TestMain lets the test binary stand in for pi: started with
// sandbox.HelperArg it acts as the confining helper, as pi does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.RunHelper(os.Args[2:], os.Stderr))
	}
	os.Exit(m.Run())
}
