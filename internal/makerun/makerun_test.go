package makerun

import (
	"slices"
	"testing"
)

func TestEnvironDropsTheOuterMake(t *testing.T) {
	in := []string{"PATH=/bin", "MAKEFLAGS=-j2 --jobserver-auth=3,4", "MFLAGS=-j2", "MAKELEVEL=1", "HOME=/h", "MAKEFILE_LIST=x"}
	want := []string{"PATH=/bin", "HOME=/h", "MAKEFILE_LIST=x"}
	if got := environ(in); !slices.Equal(got, want) {
		t.Fatalf("environ = %q, want %q", got, want)
	}
}
