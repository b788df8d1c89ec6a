package prompt

import (
	"fmt"
	"strings"
	"testing"
)

// benchOptions is the workload the issue names: 4 tools, 3 context files of
// about 4 KB in all, and 50 skills.
func benchOptions() Options { return benchOptionsN(50) }

func benchOptionsN(n int) Options {
	body := strings.Repeat("Keep functions short and tests close to the code they check. ", 22)
	ctx := []ContextFile{
		{Path: "/home/u/.pi/agent/AGENTS.md", Content: body},
		{Path: "/src/AGENTS.md", Content: body},
		{Path: "/src/app/AGENTS.md", Content: body},
	}
	skills := make([]Skill, n)
	for i := range skills {
		skills[i] = Skill{
			Name:        fmt.Sprintf("skill-%02d", i),
			Description: "Does one well-described thing & explains <when> to use it.",
			Location:    fmt.Sprintf("/home/u/.pi/agent/skills/skill-%02d/SKILL.md", i),
		}
	}
	return Options{Cwd: "/src/app", ContextFiles: ctx, Skills: skills, Catalog: testCatalog()}
}

func BenchmarkBuildRender(b *testing.B) {
	opts := benchOptions()
	b.ReportAllocs()
	for b.Loop() {
		a, err := Build(opts)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Render(a); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDiffSections(b *testing.B) {
	opts := benchOptions()
	a, _ := Build(opts)
	r1, _ := Render(a)
	opts.Cwd = "/src/other"
	a, _ = Build(opts)
	r2, _ := Render(a)
	p1, p2 := SectionsOf(r1), SectionsOf(r2)
	b.ReportAllocs()
	for b.Loop() {
		DiffSections(p1, p2)
	}
}

func BenchmarkInterpolate(b *testing.B) {
	text := strings.Repeat("On branch {{branch}} in {{cwd}}; ", 100)
	vars := []Variable{{Name: "branch", Value: Str("main")}, {Name: "cwd", Value: Str("/src")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := interpolate(text, vars, "s"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildRenderSkills shows how building grows with the catalogue.
func BenchmarkBuildRenderSkills(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			opts := benchOptionsN(n)
			b.ReportAllocs()
			for b.Loop() {
				a, err := Build(opts)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Render(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
