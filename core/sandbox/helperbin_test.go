package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The helper beside pi runs only for a build that has a stamp, and only
// when it is there; otherwise pi re-executes itself.
func TestHelperExe(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "pi")
	for _, tc := range []struct {
		stamp  string
		helper bool
		want   string
	}{
		{"", false, exe},
		{"", true, exe},
		{"s1", false, exe},
		{"s1", true, filepath.Join(dir, HelperName)},
	} {
		os.Remove(filepath.Join(dir, HelperName))
		if tc.helper {
			if err := os.WriteFile(filepath.Join(dir, HelperName), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		old := buildStamp
		buildStamp = tc.stamp
		got := helperExe(exe)
		buildStamp = old
		if got != tc.want {
			t.Errorf("stamp %q, helper %v: %s, want %s", tc.stamp, tc.helper, got, tc.want)
		}
	}
}

// A helper refuses a policy written by a pi of another build, and one with
// a rule it does not know, instead of confining with part of it.
func TestHelperRefusesForeignPolicy(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the helper confines on Linux only")
	}
	for spec, want := range map[string]string{
		`{"stamp":"another build","network":true}`: "built apart",
		`{"network":true,"newRule":["/x"]}`:        "unknown field",
	} {
		err := helper([]string{spec, "--", "true"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error about %q", spec, err, want)
		}
	}
}
