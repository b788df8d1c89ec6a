package abi

import (
	"fmt"
	"strings"
	"testing"
)

func manyOps(n int) []Op {
	ops := make([]Op, n)
	for i := range ops {
		ops[i] = Op{Op: OpSetSection, Name: fmt.Sprintf("s%d", i), Text: "x"}
	}
	return ops
}

// Weakness: a hook result could carry any number of ops (60,000 cost
// seconds of host time on every run). Results over MaxOps are invalid.
func TestOpsCap(t *testing.T) {
	for _, hook := range []string{HookBeforeAgentStart, HookAssemble} {
		if err := ValidateOps(hook, manyOps(MaxOps)); err != nil {
			t.Fatalf("%s: %d ops refused: %v", hook, MaxOps, err)
		}
		err := ValidateOps(hook, manyOps(60000))
		if err == nil || !strings.Contains(err.Error(), "over the limit of 1000") {
			t.Fatalf("%s: 60000 ops: %v", hook, err)
		}
		if _, err := ApplyAssemble(AssembleEvent{}, manyOps(MaxOps+1)); err == nil {
			t.Fatal("ApplyAssemble applied too many ops")
		}
	}
}

// Names are indexed: removing, re-adding and replacing by name gives the
// same result as the rules say, whatever the number of sections.
func TestApplyAssembleIndexed(t *testing.T) {
	ev := AssembleEvent{
		Sections:  []Section{{Name: "a", Order: 1, Text: "A"}, {Name: "b", Order: 2, Text: "B"}, {Name: "c", Order: 3, Text: "C"}},
		Contexts:  []Context{{Name: "x", Order: 1, Text: "X"}},
		Variables: []Variable{{Name: "v"}},
	}
	val := "1"
	ops := []Op{
		{Op: OpRemoveSection, Name: "b"},
		{Op: OpSetSection, Name: "d", Text: "D"},
		{Op: OpSetSection, Name: "b", Text: "B2"},
		{Op: OpSetSection, Name: "a", Text: "A2"},
		{Op: OpRemoveSection, Name: "missing"},
		{Op: OpSetVariable, Name: "v", Value: &val},
		{Op: OpSetVariable, Name: "w"},
		{Op: OpSetContext, Name: "x", Text: "X2"},
		{Op: OpSetContext, Name: "y", Text: "Y"},
		{Op: OpRemoveContext, Name: "x"},
	}
	out, err := ApplyAssemble(ev, ops)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range out.Sections {
		got = append(got, fmt.Sprintf("%s=%s@%g", s.Name, s.Text, s.Order))
	}
	for _, c := range out.Contexts {
		got = append(got, fmt.Sprintf("ctx %s=%s@%g", c.Name, c.Text, c.Order))
	}
	for _, v := range out.Variables {
		got = append(got, fmt.Sprintf("var %s=%v", v.Name, v.Value != nil))
	}
	want := "a=A2@1 c=C@3 d=D@1002 b=B2@1003 ctx y=Y@1001 var v=true var w=false"
	if g := strings.Join(got, " "); g != want {
		t.Fatalf("got  %s\nwant %s", g, want)
	}
	if ev.Sections[1].Text != "B" {
		t.Fatal("the input event was modified")
	}
}

func BenchmarkApplyAssembleMaxOps(b *testing.B) {
	ev := AssembleEvent{}
	for i := range 500 {
		ev.Sections = append(ev.Sections, Section{Name: fmt.Sprintf("s%d", i), Order: float64(i)})
	}
	ops := manyOps(MaxOps)
	for i := 0; i < len(ops); i += 2 {
		ops[i] = Op{Op: OpRemoveSection, Name: fmt.Sprintf("s%d", i)}
	}
	for b.Loop() {
		if _, err := ApplyAssemble(ev, ops); err != nil {
			b.Fatal(err)
		}
	}
}
