package resources

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGitignoreMatch(t *testing.T) {
	type probe struct {
		path  string
		dir   bool
		match bool
	}
	cases := []struct {
		name   string
		rules  string
		probes []probe
	}{
		{"basename anywhere", "*.log\n", []probe{
			{"a.log", false, true}, {"x/y/b.log", false, true}, {"a.logx", false, false}, {"log", false, false},
		}},
		{"comments and blanks", "# a.txt\n\n   \na.txt\n", []probe{
			{"a.txt", false, true}, {"# a.txt", false, false},
		}},
		{"escaped hash and bang", "\\#x\n\\!y\n", []probe{
			{"#x", false, true}, {"!y", false, true}, {"y", false, false},
		}},
		{"negation", "*.md\n!keep.md\n", []probe{
			{"a.md", false, true}, {"keep.md", false, false}, {"sub/keep.md", false, false},
		}},
		{"negation order matters", "!keep.md\n*.md\n", []probe{
			{"keep.md", false, true},
		}},
		{"dir only", "build/\n", []probe{
			{"build", true, true}, {"build", false, false}, {"a/build", true, true},
		}},
		{"anchored leading slash", "/top\n", []probe{
			{"top", false, true}, {"a/top", false, false},
		}},
		{"anchored inner slash", "docs/*.md\n", []probe{
			{"docs/a.md", false, true}, {"x/docs/a.md", false, false}, {"docs/sub/a.md", false, false},
		}},
		{"question mark", "a?c\n", []probe{
			{"abc", false, true}, {"ac", false, false}, {"abbc", false, false}, {"a/c", false, false},
		}},
		{"star does not cross slash", "a*z\n", []probe{
			{"az", false, true}, {"abcz", false, true}, {"a/z", false, false},
		}},
		{"leading double star", "**/foo\n", []probe{
			{"foo", false, true}, {"a/b/foo", false, true}, {"a/foox", false, false},
		}},
		{"trailing double star", "abc/**\n", []probe{
			{"abc/x", false, true}, {"abc/x/y", false, true}, {"abc", true, false},
		}},
		{"inner double star", "a/**/b\n", []probe{
			{"a/b", false, true}, {"a/x/b", false, true}, {"a/x/y/b", false, true}, {"x/a/b", false, false},
		}},
		{"class", "file[0-9].txt\n[!a]x\n", []probe{
			{"file3.txt", false, true}, {"filea.txt", false, false}, {"bx", false, true}, {"ax", false, false},
		}},
		{"unclosed class is literal", "a[b\n", []probe{
			{"a[b", false, true}, {"ab", false, false},
		}},
		{"trailing spaces trimmed unless escaped", "x  \ny\\ \n", []probe{
			{"x", false, true}, {"y ", false, true}, {"y", false, false},
		}},
		// As git check-ignore: "foo<TAB>" matches only a name ending in a tab.
		{"trailing tab kept", "foo\t\n", []probe{
			{"foo\t", false, true}, {"foo", false, false},
		}},
		{"crlf", "a.txt\r\n", []probe{{"a.txt", false, true}}},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var g Gitignore
			g.Add("", c.rules)
			for _, p := range c.probes {
				if got := g.Match(p.path, p.dir); got != p.match {
					t.Errorf("Match(%q, dir=%v) = %v, want %v", p.path, p.dir, got, p.match)
				}
			}
		})
	}
}

func TestGitignoreScopedToItsDirectory(t *testing.T) {
	var g Gitignore
	g.Add("sub", "/only-here\n*.tmp\n")
	for _, p := range []struct {
		path string
		want bool
	}{
		{"only-here", false},
		{"sub/only-here", true},
		{"sub/deeper/only-here", false},
		{"a.tmp", false},
		{"sub/x/a.tmp", true},
	} {
		if got := g.Match(p.path, false); got != p.want {
			t.Errorf("Match(%q) = %v, want %v", p.path, got, p.want)
		}
	}
}

func TestSkillWalkHonoursGitignore(t *testing.T) {
	root := t.TempDir()
	skill := func(dir string) string {
		return filepath.Join(root, dir, "SKILL.md")
	}
	writeTree(t, map[string]string{
		filepath.Join(root, ".gitignore"):        "ignored/\n/drafts/*\n!/drafts/keep\n",
		skill("ignored/a"):                       "---\ndescription: no\n---\n",
		skill("drafts/b"):                        "---\ndescription: no\n---\n",
		skill("drafts/keep"):                     "---\ndescription: yes\n---\n",
		skill("group/c"):                         "---\ndescription: yes\n---\n",
		filepath.Join(root, "group/.gitignore"):  "d\n",
		skill("group/d"):                         "---\ndescription: no\n---\n",
		skill(".hidden/e"):                       "---\ndescription: no\n---\n",
		skill("node_modules/f"):                  "---\ndescription: no\n---\n",
		filepath.Join(root, "loose.md"):          "---\ndescription: loose\n---\n",
		filepath.Join(root, "group", "deep.md"):  "---\ndescription: not at the top\n---\n",
		filepath.Join(root, "notes.txt"):         "not markdown",
		filepath.Join(root, "keep", "README.md"): "no skill here",
	})
	got, diags := loadSkillsFromDir(root, "test", true)
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	want := []string{"keep", "c", "loose"}
	if len(names) != len(want) {
		t.Fatalf("skills %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("skills %v, want %v", names, want)
		}
	}
	// Without loose files, loose.md is not a skill.
	got, _ = loadSkillsFromDir(root, "test", false)
	if len(got) != 2 {
		t.Errorf("without loose files: %+v", got)
	}
}

func TestSkillWalkSurvivesSymlinkLoop(t *testing.T) {
	root := t.TempDir()
	writeTree(t, map[string]string{filepath.Join(root, "a", "s", "SKILL.md"): "---\ndescription: x\n---\n"})
	if err := os.Symlink(root, filepath.Join(root, "a", "loop")); err != nil {
		t.Skip("no symlinks:", err)
	}
	got, _ := loadSkillsFromDir(root, "test", false)
	if len(got) != 1 {
		t.Fatalf("skills %+v", got)
	}
}
