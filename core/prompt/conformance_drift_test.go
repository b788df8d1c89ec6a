package prompt

import (
	"path/filepath"
	"testing"

	"github.com/piwasm/pi/internal/conformance"
)

// The cases under testdata/conformance are copies of the shared reference,
// kept so the tests run anywhere; when the reference is present, a copy
// that drifted from it fails here.
func TestConformanceCopiesMatchReference(t *testing.T) {
	conformance.CheckCopies(t, filepath.Join("..", "..", "..", "shared", "conformance"))
}
