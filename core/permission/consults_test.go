package permission

import "testing"

// ConsultsPath is true exactly when some rule is for the tool (in any
// list, or added by an answer this session) or a Default decides: then
// the gate must resolve the path; otherwise every path gets the same
// decision and resolving it is wasted work.
func TestConsultsPath(t *testing.T) {
	for _, c := range []struct {
		name             string
		allow, ask, deny []string
		tool             string
		want             bool
	}{
		{name: "no rules", tool: "read"},
		{name: "rules for other tools", allow: []string{"bash(git status)"}, deny: []string{"edit(/w/**)"}, tool: "read"},
		{name: "deny rule", deny: []string{"read(/etc/**)"}, tool: "read", want: true},
		{name: "ask rule", ask: []string{"write(/w/proj/go.mod)"}, tool: "write", want: true},
		{name: "allow rule", allow: []string{"edit(/w/proj/**)"}, tool: "edit", want: true},
		{name: "rule without a pattern", ask: []string{"grep"}, tool: "grep", want: true},
		{name: "tool named in capitals", deny: []string{"read(/etc/**)"}, tool: "Read", want: true},
		{name: "MCP glob", deny: []string{"mcp__fs__*"}, tool: "mcp__fs__read", want: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := NewChecker(mustRules(t, c.allow, c.ask, c.deny))
			if got := ch.ConsultsPath(c.tool); got != c.want {
				t.Errorf("ConsultsPath(%q) = %v, want %v", c.tool, got, c.want)
			}
		})
	}

	ch := NewChecker(Rules{})
	ch.Default = func(Request) Outcome { return Ask }
	if !ch.ConsultsPath("read") {
		t.Error("a Default can look at the path: ConsultsPath must be true")
	}

	// A rule an answer added for the rest of the session counts too.
	ch = NewChecker(Rules{})
	r, err := ParseRule("edit(/w/proj/**)", Paths{Cwd: "/w/proj"})
	if err != nil {
		t.Fatal(err)
	}
	ch.session = append(ch.session, r)
	if !ch.ConsultsPath("edit") || ch.ConsultsPath("read") {
		t.Errorf("with a session rule for edit: edit %v, read %v; want true, false", ch.ConsultsPath("edit"), ch.ConsultsPath("read"))
	}
}
