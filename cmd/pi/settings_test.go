package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A misspelt key is reported with its file, line and the nearest known key,
// in `pi resources` and on stderr of a -p run; a key pi does not act on is
// listed by `pi resources` and reported on stderr only with --verbose.
func TestSettingsUnknownKeysAreReported(t *testing.T) {
	c := newCLI(t)
	srv, _ := mockOpenAI(t)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`,
		"settings.json": `{
  "defaultModle": "mock-1",
  "retry": {"maxRetry": 1},
  "treeFilterMode": "all"
}`,
	})
	proj := t.TempDir()
	out, errs, code := c.run("resources", "--json", "--cwd", proj)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Settings []struct {
			Name, Status string
		}
		Diagnostics []struct {
			Kind, Path, Message string
			Line                int
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	file := c.agentDir + "/settings.json"
	var got []string
	for _, d := range r.Diagnostics {
		if d.Path == file {
			got = append(got, d.Kind+"@"+string(rune('0'+d.Line))+":"+d.Message)
		}
	}
	want := []string{
		`unknown-setting@2:unknown setting "defaultModle" (did you mean "defaultModel"?)`,
		`unknown-setting@3:unknown setting "retry.maxRetry" (did you mean "retry.maxRetries"?)`,
		`ignored-setting@4:treeFilterMode has no effect in pi (pi has no /tree yet)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(r.Settings) != 1 || r.Settings[0].Name != "treeFilterMode" || r.Settings[0].Status != "unsupported" {
		t.Errorf("settings in force %+v", r.Settings)
	}

	_, errs, code = c.run("-p", "hi", "--cwd", proj, "--no-session")
	if code != 0 || !strings.Contains(errs, file+`:2: unknown setting "defaultModle" (did you mean "defaultModel"?)`) || strings.Contains(errs, "treeFilterMode") {
		t.Errorf("-p: exit %d, stderr:\n%s", code, errs)
	}
	_, errs, _ = c.run("-p", "hi", "--cwd", proj, "--no-session", "--verbose")
	if !strings.Contains(errs, "treeFilterMode has no effect") {
		t.Errorf("--verbose: stderr:\n%s", errs)
	}
}
