package sandbox

import (
	"os"
	"path/filepath"
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
		got := helperExeFor(exe, tc.stamp)
		if got != tc.want {
			t.Errorf("stamp %q, helper %v: %s, want %s", tc.stamp, tc.helper, got, tc.want)
		}
	}
}
