//go:build unix

package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestCommandsDoNotSeeProviderKeys is issue 19's secret leak: provider keys
// were in every command's environment. A command that prints its
// environment must show none of them (a built-in provider's variable, the
// variable models.json names, a copy of auth.json's key under another
// name), show the agent markers, and show a key the user passes with
// sandbox.passEnv.
func TestCommandsDoNotSeeProviderKeys(t *testing.T) {
	const (
		openai   = "sk-openai-secret-0123456789"
		custom   = "custom-model-key-0123456789"
		stored   = "stored-auth-json-key-0123456789"
		anthropc = "sk-ant-secret-0123456789"
	)
	t.Setenv("OPENAI_API_KEY", openai)
	t.Setenv("ANTHROPIC_API_KEY", anthropc)
	t.Setenv("PI_TEST_MODEL_KEY", custom)
	t.Setenv("COPY_OF_STORED", stored)
	t.Setenv("PI_TEST_HARMLESS", "still-here")
	for _, pass := range []bool{false, true} {
		c := newCLI(t)
		s := &scripted.Server{Replies: []scripted.Reply{
			{Calls: []scripted.Call{{ID: "e", Name: "bash", Args: json.RawMessage(`{"command":"env"}`)}}},
			{Text: "done"},
		}}
		srv := httptest.NewServer(s)
		t.Cleanup(srv.Close)
		settings := `{}`
		if pass {
			settings = `{"sandbox":{"passEnv":["OPENAI_API_KEY"]}}`
		}
		writeFiles(t, c.agentDir, map[string]string{
			"models.json":   `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"$PI_TEST_MODEL_KEY","models":[{"id":"mock-1","reasoning":true}]}}}`,
			"auth.json":     `{"other":{"type":"api_key","key":"` + stored + `"}}`,
			"settings.json": settings,
		})
		out, errs, code := c.run("-p", "--cwd", t.TempDir(), "--thinking", "high", "show env")
		if code != 0 || out != "done\n" {
			t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
		}
		r := resultOf(t, sessionMessages(t, c.agentDir), "e")
		text := r.Content.Text()
		for _, secret := range []string{anthropc, custom, stored} {
			if strings.Contains(text, secret) {
				t.Errorf("pass %v: a command saw the key %q:\n%s", pass, secret, text)
			}
		}
		if strings.Contains(text, openai) != pass {
			t.Errorf("pass %v: OPENAI_API_KEY in the command's environment: %v", pass, !pass)
		}
		for _, want := range []string{"AI_AGENT=pi", "PI_CODING_AGENT=true", "PI_REASONING_LEVEL=high", "PI_TEST_HARMLESS=still-here"} {
			if !strings.Contains(text, want) {
				t.Errorf("pass %v: %s missing from the command's environment", pass, want)
			}
		}
	}
}

// commandEnviron reads models.json and auth.json when the first command
// starts, not when pi does (a run that starts none never reads them
// again): keys stored after it was set up are still kept from commands.
func TestCommandEnvironReadsKeysOnFirstCommand(t *testing.T) {
	const key, stored = "late-key-0123456789", "late-stored-key-0123456789"
	t.Setenv("PI_TEST_LATE_KEY", key)
	t.Setenv("PI_TEST_LATE_COPY", stored)
	dir := t.TempDir()
	a := &app{getenv: os.Getenv}
	environ := a.commandEnviron(dir, nil, func() string { return "" })
	writeFiles(t, dir, map[string]string{
		"models.json": `{"providers":{"late":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"$PI_TEST_LATE_KEY","models":[{"id":"m"}]}}}`,
		"auth.json":   `{"other":{"type":"api_key","key":"` + stored + `"}}`,
	})
	for _, kv := range environ() {
		if strings.Contains(kv, key) || strings.Contains(kv, stored) {
			t.Errorf("a command would see %s", kv)
		}
	}
}

// Weakness (issue 32): MCP stdio servers, third-party programs, started
// with pi's whole environment, provider keys included, while bash in the
// same run saw none of them. A server that lists its environment must show
// no provider key (a built-in provider's variable, the variable models.json
// reads its key from), but the variables of its entry's env, the harmless
// rest, and a key its entry hands it on purpose.
func TestMCPServersDoNotSeeProviderKeys(t *testing.T) {
	const (
		openai   = "sk-openai-secret-0123456789"
		anthropc = "sk-ant-secret-0123456789"
		custom   = "custom-model-key-0123456789"
	)
	c := newCLI(t)
	s := &scripted.Server{Replies: []scripted.Reply{
		{Calls: []scripted.Call{{ID: "e", Name: "mcp__go__greet", Args: json.RawMessage(`{"name":"env"}`)}}},
		{Text: "done"},
	}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"$PI_TEST_MODEL_KEY","models":[{"id":"mock-1"}]}}}`,
		"mcp.json": mcpJSON(t, map[string]any{"go": map[string]any{"command": mcpServerBin(t), "args": []string{"-env"},
			"env": map[string]string{"PI_TEST_ENTRY": "from-entry", "PI_TEST_HANDED": "${ANTHROPIC_API_KEY}"}}}),
	})
	out, errs, code := c.runPi([]string{"OPENAI_API_KEY=" + openai, "ANTHROPIC_API_KEY=" + anthropc, "PI_TEST_MODEL_KEY=" + custom, "PI_TEST_HARMLESS=still-here"},
		"-p", "--no-extensions", "--cwd", t.TempDir(), "show env")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
	}
	text := textOf(resultOf(t, sessionMessages(t, c.agentDir), "e"))
	if !strings.HasPrefix(text, "Hi env") {
		t.Fatalf("the server did not answer: %s", text)
	}
	for _, name := range []string{"OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "PI_TEST_MODEL_KEY="} {
		if strings.Contains(text, "\n"+name) {
			t.Errorf("the server saw %s", name)
		}
	}
	for _, secret := range []string{openai, custom} {
		if strings.Contains(text, secret) {
			t.Errorf("the server saw the key %q", secret)
		}
	}
	for _, want := range []string{"PI_TEST_ENTRY=from-entry", "PI_TEST_HANDED=" + anthropc, "PI_TEST_HARMLESS=still-here"} {
		if !strings.Contains(text, want) {
			t.Errorf("%s missing from the server's environment:\n%s", want, text)
		}
	}
}
