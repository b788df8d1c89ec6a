package abi

import (
	"encoding/json"
	"strings"
	"testing"
)

func benchAssembly() AssembleEvent {
	para := func(n int) string {
		return strings.TrimSpace(strings.Repeat("Keep changes small and explain why they are needed. ", n))
	}
	return AssembleEvent{Sections: []Section{
		{Name: "preamble", Text: para(4)}, {Name: "rules", Order: 200, Text: para(6)},
		{Name: "project_context", Order: 500, Text: para(90)}, {Name: "skills", Order: 600, Text: para(20)},
	}}
}

func BenchmarkDecodeAssemble8K(b *testing.B) {
	raw, _ := json.Marshal(benchAssembly())
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		var ev AssembleEvent
		if err := ev.DecodeJSON(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeAssemble8KStdlib(b *testing.B) {
	raw, _ := json.Marshal(benchAssembly())
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		var ev AssembleEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			b.Fatal(err)
		}
	}
}
