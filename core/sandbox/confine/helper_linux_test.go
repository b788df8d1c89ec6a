package confine

import (
	"strings"
	"testing"
)

// A helper refuses a policy written by a pi of another build, one with a
// rule it does not know, and one without a whole seccomp filter, instead
// of confining with part of it.
func TestHelperRefusesForeignPolicy(t *testing.T) {
	for spec, want := range map[string]string{
		`{"stamp":"another build","network":true}`:     "built apart",
		`{"network":true,"newRule":["/x"]}`:            "unknown field",
		`{"network":true}`:                             "no seccomp filter",
		`{"network":true,"filter":""}`:                 "no seccomp filter",
		`{"network":true,"filter":"AAAAAAAAAAAAAA=="}`: "not whole instructions",
	} {
		err := helper([]string{spec, "--", "true"}, start{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error about %q", spec, err, want)
		}
	}
}
