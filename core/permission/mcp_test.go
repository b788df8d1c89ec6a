package permission

import "testing"

// Rules for MCP tools match by name, by name pattern and by argument.
func TestMCPRules(t *testing.T) {
	paths := Paths{Home: "/home/u", Cwd: "/work"}
	rules, errs := ParseRules([]byte(`{
		"deny": ["mcp__github__delete_*", "mcp__fs__write_file(path=/etc/*)", "mcp__db__query(*DROP*)"],
		"ask": ["mcp__github__*"],
		"allow": ["mcp__github__get_issue", "mcp__fs__*"]
	}`), "settings.json", paths)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	c := NewChecker(rules)
	for _, tc := range []struct {
		tool, args string
		want       Outcome
	}{
		{"mcp__github__delete_repo", `{}`, Deny},
		{"mcp__github__create_issue", `{"title":"x"}`, Ask},
		{"mcp__github__get_issue", `{}`, Ask}, // ask rules come before allow rules
		{"mcp__fs__write_file", `{"path":"/etc/passwd"}`, Deny},
		{"mcp__fs__write_file", `{"path":"/work/a"}`, Allow},
		{"mcp__db__query", `{"sql":"DROP TABLE x"}`, Deny},
		{"mcp__db__query", `{"sql":"SELECT 1"}`, Allow},
		// Tool names are compared in lower case, as for every tool.
		{"mcp__GitHub__Delete_Repo", `{}`, Deny},
	} {
		if got := c.Check(Request{Tool: tc.tool, Args: tc.args}).Outcome; got != tc.want {
			t.Errorf("%s %s: %s, want %s", tc.tool, tc.args, got, tc.want)
		}
	}
	for _, bad := range []string{"mcp__", "mcp__x y", "notmcp*", "mcp__a-b"} {
		if _, err := ParseRule(bad, paths); err == nil {
			t.Errorf("rule %q parsed", bad)
		}
	}
}
