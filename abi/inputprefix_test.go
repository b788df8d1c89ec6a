package abi

import (
	"strings"
	"testing"
)

// Review: WantsInput documents "leading white space ignored" but trims only
// " \t\r\n". Inputs that start with other white space (vertical tab, form
// feed, NO-BREAK SPACE, U+3000…) skip an extension whose guest would have
// reacted: yes-no, the example the feature exists for, tests the marker
// after strings.TrimSpace, which does trim them. For a policy extension
// keyed on a marker this is a bypass: the model still sees the marker.
func TestReviewWantsInputIgnoresAllLeadingWhiteSpace(t *testing.T) {
	m := Manifest{Name: "yes-no", ABI: Version, Hooks: []string{HookBeforeAgentStart}, InputPrefixes: []string{"?"}}
	for _, in := range []string{"\v?is it", "\f?is it", "\u00a0?is it", "\u3000?is it", "\u0085?is it"} {
		guestSees := strings.HasPrefix(strings.TrimSpace(in), "?") // what the yes-no guest checks
		if guestSees && !m.WantsInput(in) {
			t.Errorf("input %q: the guest would act on it, but WantsInput skips the extension", in)
		}
	}
}

// Review: a prefix that starts with white space passes Validate, but the
// input is left-trimmed before the comparison, so it can never match and
// the extension silently never runs.
func TestReviewInputPrefixWithLeadingSpaceIsRejectedOrMatches(t *testing.T) {
	m := Manifest{Name: "shell-guard", ABI: Version, Hooks: []string{HookBeforeAgentStart}, InputPrefixes: []string{" !"}}
	if errs := m.Validate(); len(errs) > 0 {
		return // rejected up front: fine
	}
	for _, in := range []string{" !rm -rf /", "  !rm -rf /", "!rm -rf /"} {
		if m.WantsInput(in) {
			return
		}
	}
	t.Fatal(`inputPrefixes [" !"] validates but no input can ever match it`)
}
