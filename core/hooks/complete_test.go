package hooks

import (
	"context"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/prompt"
)

// TestReviewCompleteSectionFromAssembleHook: the assemble hook accepts
// set_section with complete:true (abi.Op.Validate allows the flag), and
// ApplyAssemble leaves complete sections "for the host's own rules". But the
// host applies those rules only to a complete section that existed before
// the waterfall: one added by an extension in system-prompt/assemble is
// rendered next to every other section instead of being the whole prompt.
func TestReviewCompleteSectionFromAssembleHook(t *testing.T) {
	whole := &fake{name: "whole", hooks: []string{abi.HookAssemble},
		assemble: func(abi.AssembleEvent, Fetcher) (abi.AssembleResult, error) {
			return abi.AssembleResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "whole", Text: "ONLY THIS", Complete: true}}}, nil
		}}
	a, err := prompt.Build(prompt.Options{Cwd: "/p"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := New([]Handler{whole}).Assemble(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	r, err := prompt.Render(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "ONLY THIS" {
		var names []string
		for _, s := range r.Sections {
			names = append(names, s.Name)
		}
		t.Fatalf("a complete section from the assemble hook is not the whole prompt; sections: %v", names)
	}
}
