package main

import (
	"fmt"
	"os"
	"testing"
)

// childEnv marks the processes the tests start from the test binary: one
// that reaches TestMain was not taken by the helper's init (a broken or
// missing case there) and would otherwise run every test again, each
// starting more copies of itself.
const childEnv = "PI_SANDBOX_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		fmt.Fprintf(os.Stderr, "pi-sandbox test: the helper's init did not take the arguments %q\n", os.Args[1:])
		os.Exit(3)
	}
	os.Setenv(childEnv, "1")
	os.Exit(m.Run())
}
