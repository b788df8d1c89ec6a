package prompt

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The cases under testdata/conformance are copies of the shared reference
// (../shared/conformance next to the repository, or $PI_SHARED_CONFORMANCE),
// kept so the tests run anywhere. When the reference is present, a copy that
// drifted from it fails here rather than passing against stale answers.
func TestConformanceCopiesMatchReference(t *testing.T) {
	ref := os.Getenv("PI_SHARED_CONFORMANCE")
	if ref == "" {
		ref = filepath.Join("..", "..", "..", "shared", "conformance")
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
