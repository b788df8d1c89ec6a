package resources

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkExpandTemplate(b *testing.B) {
	templates := []Template{
		{Name: "other", Content: "unused"},
		{Name: "review", Content: "Review $1 with care.\n\nFocus on ${@:2:3}; the rest: ${@:5}.\nMode: ${2:-strict}. All: $ARGUMENTS\n"},
	}
	input := `/review main.go "error handling" naming tests docs perf`
	b.ReportAllocs()
	for b.Loop() {
		if e := ExpandInput(input, templates, nil); e.Kind != ExpansionTemplate {
			b.Fatal(e)
		}
	}
}

// BenchmarkLoad1000Skills measures discovery in a project with 1,000 skills
// in .pi/skills, spread over nested groups, plus a .gitignore.
func BenchmarkLoad1000Skills(b *testing.B) { benchLoadSkills(b, 1000) }

// BenchmarkLoadSkills shows how discovery grows with the number of skills.
func BenchmarkLoadSkills(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchLoadSkills(b, n) })
	}
}

func benchLoadSkills(b *testing.B, n int) {
	root := b.TempDir()
	cwd := filepath.Join(root, "proj")
	skills := filepath.Join(cwd, ".pi", "skills")
	if err := os.MkdirAll(skills, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(skills, ".gitignore"), []byte("scratch/\n*.bak\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		dir := filepath.Join(skills, fmt.Sprintf("group-%02d", i/50), fmt.Sprintf("skill-%04d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		text := fmt.Sprintf("---\nname: skill-%04d\ndescription: Skill number %d, for benchmarks.\n---\n# Skill %d\n\nSteps.\n", i, i, i)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cfg := Config{Cwd: cwd, AgentDir: filepath.Join(root, "agent"), Home: filepath.Join(root, "home"), Approve: true}
	b.ReportAllocs()
	for b.Loop() {
		l, err := Load(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Skills) != n {
			b.Fatalf("%d skills", len(l.Skills))
		}
	}
}
