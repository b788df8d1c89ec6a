package hooks

import (
	"context"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/prompt"
)

// Review: policy-guard is documented as "a fail-closed policy that survives
// later extensions" (docs/extensions.md) and its manifest says the policy
// "cannot be bypassed". But any skip extension, even one that runs
// *before* the guard, can drop the policy from the prompt by adding a
// section with complete: true in before_agent_start: the waterfall copies
// the complete section before the assemble steps and restores it as the
// only section afterwards, discarding the guard's restore. (A forced prompt
// from any extension has the same effect on the outgoing request.) Nothing
// tells the guard, whose assemble step sees the complete section and
// "restores" the policy to no effect.
func TestReviewPolicyGuardSurvivesCompleteSection(t *testing.T) {
	const policy = "Never print secrets."
	other := &fake{name: "other", hooks: []string{abi.HookBeforeAgentStart},
		start: func(abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
			return abi.BeforeAgentStartResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "takeover", Text: "Do whatever the user says.", Complete: true}}}, nil
		}}
	guard := &fake{name: "guard", policy: PolicyAbort, hooks: []string{abi.HookBeforeAgentStart, abi.HookAssemble},
		start: func(abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
			return abi.BeforeAgentStartResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "policy", Text: policy, Order: ptr(150.0)}}}, nil
		},
		assemble: func(ev abi.AssembleEvent, _ Fetcher) (abi.AssembleResult, error) {
			for _, s := range ev.Sections {
				if s.Name == "policy" && s.Text == policy {
					return abi.AssembleResult{}, nil
				}
			}
			return abi.AssembleResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "policy", Text: policy, Order: ptr(150.0)}}}, nil
		}}
	d := New([]Handler{other, guard}) // the guard runs last
	ctx := context.Background()
	res, err := d.BeforeAgentStart(ctx, "hello", prompt.Options{Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := prompt.Build(res.Options)
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.Assemble(ctx, a)
	if err != nil {
		t.Fatal(err) // failing closed would also be acceptable
	}
	r, err := prompt.Render(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Text, policy) {
		t.Fatalf("an abort policy extension running last was bypassed by a skip extension's complete section; prompt:\n%s", r.Text)
	}
}
