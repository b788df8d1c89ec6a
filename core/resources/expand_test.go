package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandInput(t *testing.T) {
	dir := t.TempDir()
	skillPath := filepath.Join(dir, "pdf", "SKILL.md")
	writeTree(t, map[string]string{skillPath: "---\nname: pdf\ndescription: Work with PDFs.\n---\n\n# PDF\n\nUse the tools.\n\n"})
	skills := []Skill{{Name: "pdf", Description: "Work with PDFs.", FilePath: skillPath, BaseDir: filepath.Dir(skillPath)}}
	templates := []Template{
		{Name: "review", Content: "Review $1 then ${@:2}"},
		{Name: "skill:pdf", Content: "never used: skills come first"},
	}
	block := "<skill name=\"pdf\" location=\"" + skillPath + "\">\nPaths in this skill are relative to " + filepath.Dir(skillPath) + ".\n\n# PDF\n\nUse the tools.\n</skill>"
	cases := []struct {
		in, kind, name, text string
	}{
		{"/skill:pdf", ExpansionSkill, "pdf", block},
		{"/skill:pdf   ", ExpansionSkill, "pdf", block},
		{"/skill:pdf split the file\nin two ", ExpansionSkill, "pdf", block + "\n\nsplit the file\nin two"},
		{"/skill:pdf\tx", ExpansionSkill, "pdf", block + "\n\nx"},
		{"/skill:nope x", ExpansionText, "", "/skill:nope x"},
		{"/skill: x", ExpansionText, "", "/skill: x"},
		{"/review a b c", ExpansionTemplate, "review", "Review a then b c"},
		{"/reviewer a", ExpansionText, "", "/reviewer a"},
		{"hello /review", ExpansionText, "", "hello /review"},
		{"", ExpansionText, "", ""},
	}
	for _, c := range cases {
		got := ExpandInput(c.in, templates, skills)
		if got.Kind != c.kind || got.Name != c.name || got.Text != c.text || got.Err != nil {
			t.Errorf("ExpandInput(%q) = %+v\nwant kind=%s name=%s text=%q", c.in, got, c.kind, c.name, c.text)
		}
	}
	// A skill whose file disappeared leaves the text alone and says why.
	if err := os.Remove(skillPath); err != nil {
		t.Fatal(err)
	}
	got := ExpandInput("/skill:pdf go", templates, skills)
	if got.Kind != ExpansionText || got.Text != "/skill:pdf go" || got.Err == nil {
		t.Errorf("missing file: %+v", got)
	}
}

func TestTemplateDescriptions(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("é", 61)
	writeTree(t, map[string]string{
		filepath.Join(dir, "a.md"):        "\n\n  First line here  \nsecond",
		filepath.Join(dir, "b.md"):        long,
		filepath.Join(dir, "c.md"):        "---\ndescription: From frontmatter\nargument-hint: <file>\n---\nBody",
		filepath.Join(dir, "d.md"):        "---\ndescription: [broken\n---\nBody",
		filepath.Join(dir, "e.txt"):       "not a template",
		filepath.Join(dir, "sub", "f.md"): "not scanned",
		filepath.Join(dir, "g.md"):        "\uFEFF---\r\ndescription: crlf\r\n---\r\nBody\r\n",
	})
	got, diags := loadTemplatesFromDir(dir, "test")
	if len(diags) != 1 || diags[0].Path != filepath.Join(dir, "d.md") || diags[0].Line != 2 {
		t.Errorf("diagnostics %v", diags)
	}
	want := map[string][2]string{
		"a": {"  First line here  ", ""}, // untrimmed, as the TypeScript pi shows it
		"b": {strings.Repeat("é", 60) + "...", ""},
		"c": {"From frontmatter", "<file>"},
		"g": {"crlf", ""},
	}
	if len(got) != len(want) {
		t.Fatalf("templates %+v", got)
	}
	for _, tp := range got {
		w := want[tp.Name]
		if tp.Description != w[0] || tp.ArgumentHint != w[1] {
			t.Errorf("%s: description %q hint %q, want %q", tp.Name, tp.Description, tp.ArgumentHint, w)
		}
	}
}

func TestParseArgsEdges(t *testing.T) {
	cases := map[string][]string{
		`"a"b c`:               {"ab", "c"},
		`"a"'b'`:               {"a'b'"},
		`'x\'y' z`:             {"x'y", "z"},
		`"x\y"`:                {`x\y`},
		`"unclosed \" q`:       {`"unclosed`, `\"`, "q"},
		"''":                   {""},
		"\u00a0a\u2003b\u3000": {"a", "b"},
	}
	for in, want := range cases {
		got := ParseArgs(in)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
			t.Errorf("ParseArgs(%q) = %q, want %q", in, got, want)
		}
	}
}
