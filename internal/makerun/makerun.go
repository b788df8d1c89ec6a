package makerun

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Run runs make -s -C root with args (targets and variables), skipping the
// test when make is not installed and failing it with make's output when
// make fails. root is the repository's directory, relative to the test's
// package directory or absolute.
func Run(t testing.TB, root string, args ...string) {
	t.Helper()
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(mk, append([]string{"-s", "-C", abs}, args...)...)
	cmd.Env = environ(os.Environ())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make %v: %v\n%s", args, err, out)
	}
}

// environ is env without the flags of a make that runs the tests (`make
// test`, `make -j test`): its jobserver is not this make's to use.
func environ(env []string) []string {
	var out []string
	for _, kv := range env {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "MAKEFLAGS", "MFLAGS", "MAKELEVEL":
		default:
			out = append(out, kv)
		}
	}
	return out
}
