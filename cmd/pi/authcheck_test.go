package main

import (
	"strings"
	"testing"
)

// pi auth check / print-api-key / print-bearer-token answer as the
// established harness's do: ready (0), not_ready (1) or invalid (2) with
// its JSON fields; the key (or bearer token) resolved as a request would
// resolve it, auth.json before the environment.
func TestAuthCheckAndPrint(t *testing.T) {
	c := newCLI(t)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"gw":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"$GW_KEY","models":[{"id":"gw-1"}]},
  "broken":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"!exit 3","models":[{"id":"b-1"}]}}}`,
	})
	cases := []struct {
		env  map[string]string
		args []string
		out  string
		code int
	}{
		{nil, []string{"check", "--provider", "openai"}, "not_ready\n", 1},
		{nil, []string{"check", "--provider", "openai", "--json"}, `{"status":"not_ready","provider":"openai","reason":"credentials_not_configured"}`, 1},
		{map[string]string{"OPENAI_API_KEY": "sk-x"}, []string{"check", "--provider", "openai", "--json"}, `{"status":"ready","provider":"openai","authType":"api_key"}`, 0},
		{nil, []string{"check", "--provider", "nosuch", "--json"}, `{"status":"not_ready","provider":"nosuch","reason":"provider_not_found"}`, 1},
		{map[string]string{"GW_KEY": "g"}, []string{"check", "--model", "gw-1"}, "ready\n", 0},
		{map[string]string{"OPENAI_API_KEY": "sk-x"}, []string{"print-api-key", "--provider", "openai"}, "sk-x\n", 0},
		{map[string]string{"GW_KEY": "g"}, []string{"print-api-key", "--model", "gw/gw-1"}, "g\n", 0},
		{nil, []string{"print-api-key", "--provider", "openai"}, "", 1},
		{map[string]string{"OPENAI_API_KEY": "sk-x"}, []string{"print-bearer-token", "--provider", "openai"}, "", 1},
		{map[string]string{"ANTHROPIC_OAUTH_TOKEN": "sk-ant-oat-1"}, []string{"print-bearer-token", "--provider", "anthropic"}, "sk-ant-oat-1\n", 0},
		{nil, []string{"check", "--provider", "broken"}, "invalid\n", 2},
		{nil, []string{"check"}, "", 2},
	}
	for _, tc := range cases {
		c.env = tc.env
		out, errs, code := c.run(append([]string{"auth"}, tc.args...)...)
		if code != tc.code || strings.TrimSpace(out) != strings.TrimSpace(tc.out) {
			t.Errorf("pi auth %s (env %v): exit %d, stdout %q, stderr %q; want exit %d, stdout %q", strings.Join(tc.args, " "), tc.env, code, out, errs, tc.code, tc.out)
		}
	}
	// Stored keys come first, as in a request.
	c.env = map[string]string{"OPENAI_API_KEY": "from-env"}
	c.stdinText = "from-file\n"
	if _, errs, code := c.run("auth", "login", "openai"); code != 0 {
		t.Fatal(errs)
	}
	if out, _, _ := c.run("auth", "print-api-key", "--provider", "openai"); out != "from-file\n" {
		t.Errorf("auth.json first: %q", out)
	}
}
