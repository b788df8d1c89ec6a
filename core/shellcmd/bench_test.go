package shellcmd

import "testing"

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Parse("go test ./... && git status")
	}
}

func BenchmarkParserReused(b *testing.B) {
	var p Parser
	b.ReportAllocs()
	for b.Loop() {
		p.Parse("go test ./... && git status")
	}
}
