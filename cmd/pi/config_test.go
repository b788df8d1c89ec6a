package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pi config lists skills, prompt templates and extensions; disable and
// enable write "-path" and "+path" into the settings list the established
// harness's pi config writes, keeping the file's other keys, and the
// resource goes away from (and comes back to) what pi loads. It never
// contacts a model (no models.json here at all).
func TestConfigTurnsResourcesOffAndOn(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, c.agentDir, map[string]string{
		"skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Ship it.\n---\nSteps.",
		"prompts/review.md":      "---\ndescription: Review the diff\n---\nReview $@",
		"settings.json":          `{"theme": "dark", "skills": ["-skills/deploy/SKILL.md"]}`,
	})
	list := func() map[string]bool {
		t.Helper()
		out, errs, code := c.run("config", "--json", "--cwd", proj)
		if code != 0 {
			t.Fatalf("pi config: exit %d: %s", code, errs)
		}
		var items []configItem
		if err := json.Unmarshal([]byte(out), &items); err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, it := range items {
			got[it.Kind+":"+it.Name] = it.Enabled
		}
		return got
	}
	if got := list(); got["skill:deploy"] || !got["prompt:review"] {
		t.Fatalf("listing %v: deploy should be off (the settings say -path), review on", got)
	}
	expandKind := func(line string) string {
		out, errs, code := c.run("expand", "--json", "--cwd", proj, "--", line)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var e struct{ Kind string }
		json.Unmarshal([]byte(out), &e)
		return e.Kind
	}
	if k := expandKind("/skill:deploy now"); k != "text" {
		t.Fatalf("a disabled skill expanded as %q", k)
	}

	out, errs, code := c.run("config", "enable", "deploy", "--cwd", proj)
	if code != 0 || !strings.Contains(out, "skill deploy is on") {
		t.Fatalf("enable: exit %d: %s%s", code, out, errs)
	}
	if _, errs, code := c.run("config", "disable", "review", "--cwd", proj); code != 0 {
		t.Fatalf("disable: exit %d: %s", code, errs)
	}
	data, _ := os.ReadFile(filepath.Join(c.agentDir, "settings.json"))
	var s struct {
		Theme   string
		Skills  []string
		Prompts []string
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Theme != "dark" || strings.Join(s.Skills, ",") != "+skills/deploy/SKILL.md" || strings.Join(s.Prompts, ",") != "-prompts/review.md" {
		t.Fatalf("settings.json after enable/disable:\n%s", data)
	}
	if got := list(); !got["skill:deploy"] || got["prompt:review"] {
		t.Fatalf("listing after the changes %v", got)
	}
	if k := expandKind("/skill:deploy now"); k != "skill" {
		t.Errorf("an enabled skill expanded as %q", k)
	}
	if k := expandKind("/review x"); k != "text" {
		t.Errorf("a disabled template expanded as %q", k)
	}

	if _, errs, code := c.run("config", "disable", "nosuch", "--cwd", proj); code != exitUsage || !strings.Contains(errs, `no skill or prompt template named "nosuch"`) {
		t.Errorf("unknown name: exit %d: %s", code, errs)
	}
	if _, errs, code := c.run("config", "frobnicate", "--cwd", proj); code != exitUsage || !strings.Contains(errs, `unknown action "frobnicate"`) {
		t.Errorf("unknown action: exit %d: %s", code, errs)
	}
	out, _, code = c.run("config", "--cwd", proj)
	if code != 0 || !strings.Contains(out, "[x] deploy") || !strings.Contains(out, "[ ] review") {
		t.Errorf("listing:\n%s", out)
	}
}
