//go:build !wasip1

package main

import (
	"testing"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

const glossary = `# Glossary

- **SLO**: service level objective, the target we page on
- **SLO budget**: how much of the SLO may be missed in a month
  before releases stop
PTO: paid time off
Some prose that is not an entry.
- Atlas — the deploy pipeline
`

func TestLookup(t *testing.T) {
	cases := []struct {
		query, want string
		isError     bool
	}{
		{"slo", "SLO: service level objective, the target we page on\nSLO budget: how much of the SLO may be missed in a month before releases stop", false},
		{"PTO", "PTO: paid time off", false},
		{"atlas", "Atlas: the deploy pipeline", false},
		{"k8s", `"k8s" is not in the glossary (docs/glossary.md). Known terms: SLO, SLO budget, PTO, Atlas`, true},
	}
	for _, c := range cases {
		r := Lookup(glossary, c.query, "docs/glossary.md")
		if got := r.Content[0].Text; got != c.want || r.IsError != c.isError {
			t.Errorf("%s:\n got %q (error %v)\nwant %q (error %v)", c.query, got, r.IsError, c.want, c.isError)
		}
	}
}

func TestTool(t *testing.T) {
	h := &sdk.Harness{Config: `{"file":"docs/glossary.md"}`, Files: map[string]string{"docs/glossary.md": glossary}}
	r, err := h.Tool(abi.ToolEvent{ToolName: "glossary", Input: []byte(`{"term":"pto"}`)})
	if err != nil || r.IsError || r.Content[0].Text != "PTO: paid time off" {
		t.Fatalf("%+v %v", r, err)
	}
	if len(h.Updates) != 1 || h.Updates[0] != "reading docs/glossary.md" {
		t.Errorf("updates: %q", h.Updates)
	}
	denied := &sdk.Harness{}
	r, err = denied.Tool(abi.ToolEvent{ToolName: "glossary", Input: []byte(`{"term":"pto"}`)})
	if err != nil || !r.IsError {
		t.Fatalf("without the grant: %+v %v", r, err)
	}
}
