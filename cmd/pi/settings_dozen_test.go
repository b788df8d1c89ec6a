package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// One settings.json with fourteen keys and a misspelt one, one run of the
// real command line against a scripted model: each key is seen taking
// effect in the requests, the tool output or the files, and the misspelt
// key is reported with its file, line and the nearest known key.
func TestSettingsDozenKeysInOneRun(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, c.home, map[string]string{
		"mysh":                      "#!/bin/sh\necho via-mysh\nexec bash \"$@\"\n",
		"team-skills/lint/SKILL.md": "---\nname: lint\ndescription: Run the linters before a commit.\n---\nRun make lint.",
		"team-prompts/greet.md":     "---\ndescription: Greet someone\n---\nSay hello to $1 politely.",
	})
	if err := os.Chmod(filepath.Join(c.home, "mysh"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := &scripted.Server{Replies: []scripted.Reply{
		{Status: 503},
		{Calls: []scripted.Call{
			{ID: "env", Name: "bash", Args: json.RawMessage(`{"command":"echo FOO=$FOO"}`)},
			{ID: "push", Name: "bash", Args: json.RawMessage(`{"command":"git push origin main"}`)},
		}},
		{Text: "done"},
	}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	settingsJSON := `{
  "defaultProvider": "second",
  "defaultModel": "m-b",
  "defaultThinkingLevel": "low",
  "defaultTools": ["-edit", "+grep"],
  "shellPath": "~/mysh",
  "shellCommandPrefix": "export FOO=bar",
  "permissions": {"deny": ["bash(git push:*)"]},
  "retry": {"enabled": true, "maxRetries": 1, "baseDelayMs": 5},
  "skills": ["~/team-skills"],
  "prompts": ["~/team-prompts"],
  "sessionDir": "my-sessions",
  "sections": {"house": {"order": 250, "text": "<house>Indent with tabs.</house>"}},
  "steeringMod": "all"
}`
	writeFiles(t, c.agentDir, map[string]string{
		"settings.json": settingsJSON,
		"models.json": `{"providers":{
  "first":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m-a"}]},
  "second":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m-b","reasoning":true}]}}}`,
	})
	out, errs, code := c.run("-p", "--cwd", proj, "/greet Ada")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d, stdout %q, stderr:\n%s", code, out, errs)
	}
	var reqs []map[string]any
	for _, raw := range s.Requests() {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, m)
	}
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (one answered 503 and sent again, one after the tools)", len(reqs))
	}
	r := reqs[0]
	text := func(v any) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(v)
		return b.String()
	}
	msgs := r["messages"].([]any)
	system := text(msgs[0])
	user := text(msgs[len(msgs)-1])
	checks := []struct {
		key string
		ok  bool
		saw string
	}{
		{"defaultProvider, defaultModel", r["model"] == "m-b", text(r["model"])},
		{"defaultThinkingLevel", r["reasoning_effort"] == "low", text(r["reasoning_effort"])},
		{"defaultTools", toolNames(r) == "read,bash,write,grep", toolNames(r)},
		{"retry.enabled, retry.maxRetries, retry.baseDelayMs", reflect.DeepEqual(reqs[0], reqs[1]), "the 503'd request was not sent again as it was"},
		{"skills", strings.Contains(system, "lint") && strings.Contains(system, "Run the linters"), system},
		{"sections", strings.Contains(system, "<house>Indent with tabs.</house>"), system},
		{"prompts", strings.Contains(user, "Say hello to Ada politely."), user},
	}
	results := map[string]string{}
	for _, m := range reqs[2]["messages"].([]any) {
		if m := m.(map[string]any); m["role"] == "tool" {
			results[m["tool_call_id"].(string)] = text(m["content"])
		}
	}
	checks = append(checks, []struct {
		key string
		ok  bool
		saw string
	}{
		{"shellCommandPrefix", strings.Contains(results["env"], "FOO=bar"), results["env"]},
		{"shellPath", strings.Contains(results["env"], "via-mysh"), results["env"]},
		{"permissions", strings.Contains(results["push"], "git push") && !strings.Contains(results["push"], "via-mysh"), results["push"]},
	}...)
	sessions, _ := filepath.Glob(filepath.Join(proj, "my-sessions", "*.jsonl"))
	checks = append(checks, struct {
		key string
		ok  bool
		saw string
	}{"sessionDir", len(sessions) == 1, strings.Join(sessions, " ")})
	file := filepath.Join(c.agentDir, "settings.json")
	checks = append(checks, struct {
		key string
		ok  bool
		saw string
	}{"the misspelt key", strings.Contains(errs, file+`:14: unknown setting "steeringMod" (did you mean "steeringMode"?)`), errs})
	for _, ch := range checks {
		if !ch.ok {
			t.Errorf("%s: no effect seen; saw %s", ch.key, ch.saw)
		}
	}
}
