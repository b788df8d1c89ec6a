package resources

import (
	"path/filepath"
	"strings"
	"testing"
)

// The "!glob", "+path" and "-path" entries of skills and prompts filter
// the resources under their settings file's directory, as the established
// harness reads them.
func TestSettingsResourceFilters(t *testing.T) {
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	skill := func(name string) string {
		return "---\nname: " + name + "\ndescription: " + name + " skill\n---\nBody."
	}
	writeTree(t, map[string]string{
		filepath.Join(agent, "skills", "alpha", "SKILL.md"): skill("alpha"),
		filepath.Join(agent, "skills", "beta", "SKILL.md"):  skill("beta"),
		filepath.Join(agent, "skills", "gamma", "SKILL.md"): skill("gamma"),
		filepath.Join(agent, "prompts", "fix.md"):           "Fix it.",
		filepath.Join(agent, "prompts", "review.md"):        "Review it.",
		filepath.Join(agent, "settings.json"):               `{"skills":["!skills/*","+skills/beta","+skills/gamma","-skills/gamma"],"prompts":["-prompts/fix.md"]}`,
	})
	l, err := Load(Config{Cwd: t.TempDir(), AgentDir: agent, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	var skills, templates []string
	for _, s := range l.Skills {
		skills = append(skills, s.Name)
	}
	for _, tp := range l.Templates {
		templates = append(templates, tp.Name)
	}
	if got := strings.Join(skills, ","); got != "beta" {
		t.Errorf("skills %s, want beta", got)
	}
	if got := strings.Join(templates, ","); got != "review" {
		t.Errorf("templates %s, want review", got)
	}
	for _, d := range l.Diagnostics {
		if strings.Contains(d.Message, "skills/") || strings.Contains(d.Message, "prompts/") {
			t.Errorf("a filter entry was taken as a path: %v", d)
		}
	}
}
