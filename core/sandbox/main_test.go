package sandbox_test

import (
	"os"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/internal/hostile"
)

// TestMain lets the test binary stand in for pi: started with
// sandbox.HelperArg it acts as the confining helper, as pi does. Started
// with the name of a hostile program it is that program.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.HelperArg {
		os.Exit(sandbox.RunHelper(os.Args[2:], os.Stderr))
	}
	if code, ok := hostile.Main(os.Args[1:], os.Stdout); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
