package prompt

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func mustBuildRender(t *testing.T, opts Options) Rendered {
	t.Helper()
	a, err := Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Render(a)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func names(r Rendered) string {
	var out []string
	for _, s := range r.Sections {
		out = append(out, s.Name)
	}
	return strings.Join(out, ",")
}

func f(v float64) *float64 { return &v }

func TestBuildGolden(t *testing.T) {
	ctx := []ContextFile{
		{Path: "/home/u/.pi/agent/AGENTS.md", Content: "Prefer small commits."},
		{Path: "/src/app/AGENTS.md", Content: "Run `make test` before you finish."},
	}
	skills := []Skill{
		{Name: "pdf", Description: "Fill & read PDF forms <fast>", Location: "/s/pdf/SKILL.md"},
		{Name: "hidden", Description: "not for the model", Location: "/s/hidden/SKILL.md", DisableModelInvocation: true},
		{Name: "db", Description: `Query "prod" safely, don't write`, Location: "/s/db/SKILL.md"},
	}
	cases := []struct {
		name  string
		opts  Options
		order string
	}{
		{"default.txt", Options{Cwd: "/src/app"}, "preamble,tools,rules,docs,cwd"},
		{"append.txt", Options{Cwd: "/src/app", AppendText: "Always answer in English."}, "preamble,tools,rules,docs,addendum,cwd"},
		{"custom.txt", Options{Cwd: `C:\src\app`, CustomPrompt: "You are a reviewer."}, "preamble,cwd"},
		{"no-tools.txt", Options{Cwd: "/src/app", Tools: []string{}, Skills: skills}, "preamble,tools,rules,docs,cwd"},
		{"search-tools.txt", Options{Cwd: "/src/app", Tools: []string{"read", "bash", "grep", "find", "ls"}}, "preamble,tools,rules,docs,cwd"},
		{"full.txt", Options{
			Cwd: "/src/app", AppendText: "Be brief.", ContextFiles: ctx, Skills: skills,
			Guidelines: []string{"Never push to main.", "  Never push to main.  "},
			Sections: []SectionSpec{
				{Name: "team_rules", Text: "<team_rules>\nTabs, not spaces.\n</team_rules>", Order: f(250), Source: "settings:/src/app/.pi/settings.json"},
				{Name: "late", Text: "tail section", Source: "extension:x"},
				{Name: "empty", Text: "", Source: "extension:x"},
			},
		}, "preamble,tools,rules,team_rules,docs,addendum,project_context,skills,cwd,late"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.opts.Catalog == nil {
				c.opts.Catalog = testCatalog()
			}
			r := mustBuildRender(t, c.opts)
			if got := names(r); got != c.order {
				t.Fatalf("sections %s, want %s", got, c.order)
			}
			for _, s := range r.Sections {
				if s.Name == "preamble" || s.Source != SourceBuiltin {
					continue
				}
				if !strings.HasPrefix(s.Text, "<"+s.Name+">\n") || !strings.HasSuffix(s.Text, "\n</"+s.Name+">") {
					t.Errorf("section %s is not wrapped in its tag: %q", s.Name, s.Text)
				}
			}
			golden(t, c.name, r.Text)
		})
	}
}

func TestRulesShellBulletAndDedupe(t *testing.T) {
	r := mustBuildRender(t, Options{Tools: []string{"bash"}, Guidelines: []string{conciseRule, " x ", "x"}})
	rules, _ := sectionText(r, "rules")
	if !strings.Contains(rules, shellForFilesRule) {
		t.Error("bash without search tools should get the shell bullet")
	}
	if strings.Count(rules, conciseRule) != 1 || strings.Count(rules, "- x\n") != 1 {
		t.Errorf("bullets not de-duplicated:\n%s", rules)
	}
	r = mustBuildRender(t, Options{Tools: []string{"bash", "ls"}})
	rules, _ = sectionText(r, "rules")
	if strings.Contains(rules, shellForFilesRule) {
		t.Error("shell bullet must not appear when ls is selected")
	}
}

func sectionText(r Rendered, name string) (string, bool) {
	for _, s := range r.Sections {
		if s.Name == name {
			return s.Text, true
		}
	}
	return "", false
}

func TestSkillsNeedReadOrBash(t *testing.T) {
	skills := []Skill{{Name: "a", Description: "d", Location: "/a"}}
	if _, ok := sectionText(mustBuildRender(t, Options{Tools: []string{"edit"}, Skills: skills}), "skills"); ok {
		t.Error("skills listed without read or bash")
	}
	if _, ok := sectionText(mustBuildRender(t, Options{Tools: []string{"bash"}, Skills: skills}), "skills"); !ok {
		t.Error("skills missing with bash")
	}
	hidden := []Skill{{Name: "a", Description: "d", Location: "/a", DisableModelInvocation: true}}
	if _, ok := sectionText(mustBuildRender(t, Options{Skills: hidden}), "skills"); ok {
		t.Error("skills section with no visible skill")
	}
}

func TestExtraSections(t *testing.T) {
	t.Run("invalid names", func(t *testing.T) {
		for _, name := range []string{"preamble", "Bad", "1x", "", "a b", "_a"} {
			if _, err := Build(Options{Sections: []SectionSpec{{Name: name, Text: "x"}}}); err == nil {
				t.Errorf("name %q accepted", name)
			}
		}
	})
	t.Run("built-in name replaces in place", func(t *testing.T) {
		r := mustBuildRender(t, Options{Sections: []SectionSpec{{Name: "rules", Text: "my rules", Source: "cli"}}})
		if got := names(r); got != "preamble,tools,rules,docs,cwd" {
			t.Fatal(got)
		}
		if txt, _ := sectionText(r, "rules"); txt != "my rules" {
			t.Fatal(txt)
		}
	})
	t.Run("later layer wins and keeps position", func(t *testing.T) {
		r := mustBuildRender(t, Options{Sections: []SectionSpec{
			{Name: "a", Text: "A1", Source: "settings:g"},
			{Name: "b", Text: "B", Source: "cli"},
			{Name: "a", Text: "A2", Source: "extension:e"},
		}})
		if got := names(r); !strings.HasSuffix(got, "cwd,a,b") {
			t.Fatal(got)
		}
		if r.Sections[len(r.Sections)-2].Source != "extension:e" || r.Sections[len(r.Sections)-2].Text != "A2" {
			t.Fatalf("%+v", r.Sections[len(r.Sections)-2])
		}
	})
	t.Run("ties break by name", func(t *testing.T) {
		r := mustBuildRender(t, Options{Sections: []SectionSpec{
			{Name: "zz", Text: "z", Order: f(150)},
			{Name: "aa", Text: "a", Order: f(150)},
		}})
		if got := names(r); got != "preamble,tools,aa,zz,rules,docs,cwd" {
			t.Fatal(got)
		}
	})
}

func TestInterpolationOnlyOptIn(t *testing.T) {
	r := mustBuildRender(t, Options{
		ContextFiles: []ContextFile{{Path: "/AGENTS.md", Content: "literal {{branch}} and {{ bad }}"}},
		Sections: []SectionSpec{
			{Name: "branch", Text: "On {{branch}}.", Interpolate: true},
			{Name: "raw", Text: "{{branch}}"},
		},
		Variables: []Variable{{Name: "branch", Value: Str("main")}},
	})
	if txt, _ := sectionText(r, "branch"); txt != "On main." {
		t.Fatal(txt)
	}
	if txt, _ := sectionText(r, "raw"); txt != "{{branch}}" {
		t.Fatal(txt)
	}
	if txt, _ := sectionText(r, "project_context"); !strings.Contains(txt, "literal {{branch}} and {{ bad }}") {
		t.Fatal(txt)
	}
}

func TestWaterfall(t *testing.T) {
	base, err := Build(Options{Cwd: "/w", Sections: []SectionSpec{{Name: "policy", Text: "no secrets"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("last result wins, nil means unchanged", func(t *testing.T) {
		out, err := Waterfall(base,
			func(a *Assembly) (*Assembly, error) { a.RemoveSection("docs"); return a, nil },
			func(a *Assembly) (*Assembly, error) { return nil, nil },
			func(a *Assembly) (*Assembly, error) {
				if _, ok := a.Section("docs"); ok {
					t.Error("second step did not see the first step's edit")
				}
				return a, a.SetSection(Section{Name: "extra", Order: 50, Text: "x", Source: "extension:b"}, false)
			},
		)
		if err != nil {
			t.Fatal(err)
		}
		r, _ := Render(out)
		if got := names(r); got != "preamble,extra,tools,rules,cwd,policy" {
			t.Fatal(got)
		}
		if _, ok := base.Section("docs"); !ok {
			t.Error("waterfall changed its input")
		}
	})
	t.Run("step error stops", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := Waterfall(base, func(a *Assembly) (*Assembly, error) { return nil, boom })
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
	})
	t.Run("complete section restored as the only one", func(t *testing.T) {
		a := base.Clone()
		a.Sections = append(a.Sections, Section{Name: "whole", Text: "ONLY THIS", Complete: true, Order: 5})
		out, err := Waterfall(a, func(a *Assembly) (*Assembly, error) {
			a.RemoveSection("whole")
			a.Sections[0].Text = "changed"
			return a, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := Render(out)
		if r.Text != "ONLY THIS" || names(r) != "whole" {
			t.Fatalf("%q %s", r.Text, names(r))
		}
	})
	t.Run("two complete sections conflict", func(t *testing.T) {
		a := base.Clone()
		a.Sections = append(a.Sections, Section{Name: "one", Text: "1", Complete: true}, Section{Name: "two", Text: "2", Complete: true})
		_, err := Waterfall(a)
		var ce *conflictError
		if !errors.As(err, &ce) || ce.First != "one" || ce.Second != "two" {
			t.Fatalf("%v", err)
		}
	})
	t.Run("suppressed contexts stay empty", func(t *testing.T) {
		a := base.Clone()
		a.SuppressContexts = true
		out, err := Waterfall(a, func(a *Assembly) (*Assembly, error) {
			a.SuppressContexts = false
			a.SetContext(Context{Name: "c", Text: "sneaky"})
			return a, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := RenderContexts(out); s != "" {
			t.Fatalf("contexts leaked: %q", s)
		}
	})
}

func TestUpdateNoteAndDiff(t *testing.T) {
	prev := SectionsOf(mustBuildRender(t, Options{Cwd: "/a"}))
	next := SectionsOf(mustBuildRender(t, Options{Cwd: "/b", AppendText: "x"}))
	d := DiffSections(prev, next)
	var got []string
	for _, p := range d {
		got = append(got, fmt.Sprintf("%s=%v", p.Name, p.Text != nil))
	}
	if strings.Join(got, ",") != "addendum=true,cwd=true" {
		t.Fatal(got)
	}
	note := UpdateNote(Patches{{Name: "cwd", Text: Str("<cwd>\n/b\n</cwd>")}, {Name: "docs"}})
	if !strings.Contains(note, `"cwd"`) || !strings.Contains(note, "/b") || !strings.Contains(note, `"docs"`) {
		t.Fatal(note)
	}
	if DiffSections(prev, prev) != nil {
		t.Fatal("equal sections must give no patch")
	}
}

// The shared-buffer join must give exactly what copying the sections does.
func TestArenaJoinMatchesCopy(t *testing.T) {
	for _, opts := range []Options{
		benchOptions(),
		{Cwd: "/a", AppendText: "x"},
		{Cwd: "/a", CustomPrompt: "P", ContextFiles: []ContextFile{{Path: "/a/AGENTS.md", Content: "c"}}},
		{Cwd: "/a", Sections: []SectionSpec{{Name: "mid", Text: "m", Order: f(250)}}},
	} {
		a, err := Build(opts)
		if err != nil {
			t.Fatal(err)
		}
		fast, _ := Render(a)
		b := a.Clone()
		b.arena = ""
		slow, _ := Render(b)
		if fast.Text != slow.Text {
			t.Fatalf("arena join differs:\n%q\n%q", fast.Text, slow.Text)
		}
		a.RemoveSection("docs")
		fast, _ = Render(a)
		if strings.Contains(fast.Text, "<docs>") {
			t.Fatal("removed section still in the joined text")
		}
	}
}
