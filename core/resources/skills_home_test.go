package resources

import (
	"os"
	"path/filepath"
	"testing"
)

// ~/.agents/skills met again as an ancestor's .agents/skills (pi started
// below the home directory, outside a repository), under its own name or
// through a symlink, is loaded once, as the user's own.
func TestHomeAgentsSkillsAsAncestor(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(root, "home")
	writeTree(t, map[string]string{
		filepath.Join(home, ".agents", "skills", "tidy", "SKILL.md"):              "---\nname: tidy\ndescription: Tidy up.\n---\nBody.\n",
		filepath.Join(home, "work", "proj", ".agents", "skills", "x", "SKILL.md"): "---\nname: x\ndescription: A project skill.\n---\nBody.\n",
	})
	link := filepath.Join(root, "homelink")
	if err := os.Symlink(home, link); err != nil {
		t.Skip(err)
	}
	for _, h := range []string{home, link} {
		got, diags := findSkills(skillSearch{Cwd: filepath.Join(home, "work", "proj"), Home: h, Trusted: true})
		sources := map[string]string{}
		for _, s := range got {
			sources[s.Name] = s.Source
		}
		if len(got) != 2 || sources["tidy"] != SourceUserAgents || sources["x"] != SourceProjectAgents {
			t.Errorf("home %s: skills %+v, diagnostics %v", h, got, diags)
		}
	}
}

// Without ~/.agents/skills, every ancestor's .agents/skills up to the
// filesystem root is the project's, the home directory's own name
// included.
func TestNoHomeAgentsSkills(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	home := filepath.Join(root, "home")
	writeTree(t, map[string]string{
		filepath.Join(root, ".agents", "skills", "up", "SKILL.md"):        "---\nname: up\ndescription: Above home.\n---\nBody.\n",
		filepath.Join(home, "work", ".agents", "skills", "x", "SKILL.md"): "---\nname: x\ndescription: A project skill.\n---\nBody.\n",
		filepath.Join(home, "work", "proj", "README"):                     "",
	})
	got, diags := findSkills(skillSearch{Cwd: filepath.Join(home, "work", "proj"), Home: home, Trusted: true})
	sources := map[string]string{}
	for _, s := range got {
		sources[s.Name] = s.Source
	}
	if len(got) != 2 || sources["up"] != SourceProjectAgents || sources["x"] != SourceProjectAgents {
		t.Errorf("skills %+v, diagnostics %v", got, diags)
	}
}
