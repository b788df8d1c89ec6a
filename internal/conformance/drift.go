package conformance

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// CheckCopies compares every testdata/conformance/*.json of the calling
// package with the reference: $PI_SHARED_CONFORMANCE, else
// ../shared/conformance next to the repository (given relative to the
// package as refFromPackage). It skips, saying why, when the reference is
// not present, and fails on zero copies.
func CheckCopies(t *testing.T, refFromPackage string) {
	t.Helper()
	ref := os.Getenv("PI_SHARED_CONFORMANCE")
	if ref == "" {
		ref = refFromPackage
	}
	if _, err := os.Stat(ref); err != nil {
		t.Skipf("reference conformance directory %s not present; set PI_SHARED_CONFORMANCE to check the copies", ref)
	}
	copies, err := filepath.Glob(filepath.Join("testdata", "conformance", "*.json"))
	if err != nil || len(copies) == 0 {
		t.Fatalf("no conformance copies under testdata/conformance (%v)", err)
	}
	for _, c := range copies {
		mine, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := os.ReadFile(filepath.Join(ref, filepath.Base(c)))
		if err != nil {
			t.Errorf("%s has no counterpart in %s: %v", c, ref, err)
			continue
		}
		if !bytes.Equal(mine, theirs) {
			t.Errorf("%s differs from %s: copy the reference again and fix what it shows", c, filepath.Join(ref, filepath.Base(c)))
		}
	}
}
