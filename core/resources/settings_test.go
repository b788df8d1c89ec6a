package resources

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/settings"
)

func ptr[T any](v T) *T { return &v }

func TestLoadSettingsFile(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	writeTree(t, map[string]string{
		file: `{
  "skills": ["my-skills", "~/shared-skills", "/abs/skills"],
  "prompts": ["prompts"],
  "extensions": ["ext/one"],
  "defaultProjectTrust": "always",
  "unknownKey": 42,
  "variables": {"team": "core", "Bad": "x", "num": 3},
  "sections": {
    "zeta": {"text": "Z", "interpolate": true},
    "team_rules": {"order": 250, "file": "docs/team-rules.md"},
    "preamble": {"text": "no"},
    "Bad Name": {"text": "no"},
    "both": {"text": "a", "file": "b"},
    "neither": {},
    "missing": {"file": "nope.md"},
    "typo": {"txt": "x"}
  }
}`,
		filepath.Join(dir, "docs", "team-rules.md"): "\uFEFFRule one.",
	})
	s, diags := loadGlobalSettings(file, home)
	if want := []string{filepath.Join(dir, "my-skills"), filepath.Join(home, "shared-skills"), "/abs/skills"}; strings.Join(s.Skills, "|") != strings.Join(want, "|") {
		t.Errorf("skills %v, want %v", s.Skills, want)
	}
	if len(s.Prompts) != 1 || s.Prompts[0] != filepath.Join(dir, "prompts") {
		t.Errorf("prompts %v", s.Prompts)
	}
	if len(s.Extensions) != 1 || s.Extensions[0] != filepath.Join(dir, "ext", "one") {
		t.Errorf("extensions %v", s.Extensions)
	}
	if s.DefaultProjectTrust == nil || !*s.DefaultProjectTrust {
		t.Errorf("defaultProjectTrust %v", s.DefaultProjectTrust)
	}
	if len(s.Variables) != 1 || s.Variables["team"] != "core" {
		t.Errorf("variables %v", s.Variables)
	}
	if len(s.Sections) != 2 {
		t.Fatalf("sections %+v", s.Sections)
	}
	tr, z := s.Sections[0], s.Sections[1]
	if tr.Name != "team_rules" || tr.Order == nil || *tr.Order != 250 || tr.Text != "Rule one." || tr.Interpolate || tr.Source != "settings:"+file {
		t.Errorf("team_rules %+v", tr)
	}
	if z.Name != "zeta" || z.Order != nil || z.Text != "Z" || !z.Interpolate {
		t.Errorf("zeta %+v", z)
	}
	// One diagnostic per bad entry, each naming the file; sections by name;
	// then the settings model's (the unknown key).
	wantIn := []string{`"Bad"`, `"num"`, `"Bad Name"`, `"both"`, `"missing"`, `"neither"`, `"preamble"`, `"typo"`, `"unknownKey"`}
	if len(diags) != len(wantIn) {
		t.Fatalf("diagnostics %v", diags)
	}
	for i, d := range diags {
		if d.Path != file || !strings.Contains(d.Message, wantIn[i]) {
			t.Errorf("diagnostic %d = %v, want one about %s", i, d, wantIn[i])
		}
		if d.Line == 0 {
			t.Errorf("diagnostic %d has no line: %v", i, d)
		}
	}
}

func TestLoadSettingsFileBadJSON(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	writeTree(t, map[string]string{file: "{\n  \"skills\": [\"a\",\n  oops\n}"})
	s, diags := loadGlobalSettings(file, "")
	if len(diags) != 1 || diags[0].Kind != KindError || diags[0].Path != file || diags[0].Line != 3 {
		t.Fatalf("diagnostics %v", diags)
	}
	if len(s.Skills) != 0 {
		t.Errorf("settings %+v", s)
	}
	writeTree(t, map[string]string{file: "[1, 2]"})
	if _, diags := loadGlobalSettings(file, ""); len(diags) != 1 || diags[0].Kind != KindError {
		t.Fatalf("non-object: %v", diags)
	}
	if s, diags := loadGlobalSettings(filepath.Join(dir, "missing.json"), ""); len(diags) != 0 || len(s.Files) != 0 {
		t.Fatalf("missing file: %+v %v", s, diags)
	}
}

func TestDefaultProjectTrustValues(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	for _, c := range []struct {
		value string
		want  *bool
		diag  bool
	}{
		{`"always"`, ptr(true), false},
		{`"never"`, ptr(false), false},
		{`"ask"`, nil, false},
		{`"Always"`, nil, true}, // the other harness compares exactly
		// pi's old values still work, with a warning to write the shared ones.
		{"true", ptr(true), true},
		{"false", ptr(false), true},
		{`"trusted"`, ptr(true), true},
		{`"untrusted"`, ptr(false), true},
		{`"maybe"`, nil, true},
		{"1", nil, true},
		{"null", nil, false},
	} {
		writeTree(t, map[string]string{file: `{"defaultProjectTrust": ` + c.value + `}`})
		s, diags := loadGlobalSettings(file, "")
		if (s.DefaultProjectTrust == nil) != (c.want == nil) || (c.want != nil && *s.DefaultProjectTrust != *c.want) {
			t.Errorf("%s: got %v", c.value, s.DefaultProjectTrust)
		}
		if (len(diags) > 0) != c.diag {
			t.Errorf("%s: diagnostics %v", c.value, diags)
		}
	}
}

func TestMergeSettings(t *testing.T) {
	global := Settings{
		Files:               []string{"/g"},
		Skills:              []string{"/a", "/b"},
		DefaultProjectTrust: ptr(true),
		Sections: []SettingsSection{
			{Name: "alpha", Text: "global alpha", Source: "settings:/g"},
			{Name: "beta", Text: "global beta", Source: "settings:/g"},
		},
		Variables: map[string]string{"x": "1", "y": "2"},
	}
	project := Settings{
		Files:               []string{"/p"},
		Skills:              []string{"/b", "/c"},
		DefaultProjectTrust: ptr(false),
		Sections: []SettingsSection{
			{Name: "aardvark", Text: "project aardvark", Source: "settings:/p"},
			{Name: "beta", Text: "project beta", Source: "settings:/p"},
		},
		Variables: map[string]string{"y": "3"},
	}
	m := mergeSettings(global, project)
	if strings.Join(m.Files, ",") != "/g,/p" || strings.Join(m.Skills, ",") != "/a,/b,/c" {
		t.Errorf("lists %+v", m)
	}
	if m.DefaultProjectTrust == nil || !*m.DefaultProjectTrust {
		t.Errorf("project settings changed defaultProjectTrust")
	}
	var got []string
	for _, s := range m.Sections {
		got = append(got, s.Name+"="+s.Text)
	}
	if want := "alpha=global alpha,beta=project beta,aardvark=project aardvark"; strings.Join(got, ",") != want {
		t.Errorf("sections %v, want %s", got, want)
	}
	if m.Variables["x"] != "1" || m.Variables["y"] != "3" {
		t.Errorf("variables %v", m.Variables)
	}
	if global.Sections[1].Text != "global beta" {
		t.Errorf("merge modified its input")
	}
}

// loadGlobalSettings loads one file as the global settings, with every
// diagnostic (resources' own and the settings model's).
func loadGlobalSettings(path, home string) (Settings, []diag.Diagnostic) {
	s, _, ds := loadSettingsFile(path, home, settings.FileGlobal, settings.Builtin())
	return s, ds
}
