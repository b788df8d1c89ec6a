package sandbox

import (
	"strings"
	"testing"
)

// A helper refuses a policy written by a pi of another build, and one with
// a rule it does not know, instead of confining with part of it.
func TestHelperRefusesForeignPolicy(t *testing.T) {
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
