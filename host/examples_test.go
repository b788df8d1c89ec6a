package host

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
)

// The Go example (pi's SDK, fast path) and its AssemblyScript twin (a
// stock Extism PDK) must behave the same.
var teamSections = []string{"team-section", "team-section-as"}

func TestExampleTeamSection(t *testing.T) {
	for _, name := range teamSections {
		t.Run(name, func(t *testing.T) {
			e := load(t, nil, examplePkg(t, name))[0]
			for range 3 { // the instance is reused: each call starts clean
				res, err := e.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "hi"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Ops) != 1 {
					t.Fatalf("ops: %+v", res.Ops)
				}
				op := res.Ops[0]
				if op.Op != abi.OpSetSection || op.Name != "team" || op.Order == nil || *op.Order != 250 ||
					op.Text != "Our team reviews every change before it lands. Keep diffs small,\nexplain the reason for a change in its commit message, and add a test\nfor every bug you fix." {
					t.Fatalf("op: %+v", op)
				}
			}
		})
	}
}

// TestExampleTeamSectionConfig feeds both twins the same configs, with
// text that needs escaping both ways.
func TestExampleTeamSectionConfig(t *testing.T) {
	cases := []struct {
		config string
		name   string
		order  float64
		text   string
		none   bool
	}{
		{config: "  name: house\n  order: 12.5\n  text: \"say \\\"hi\\\" \\\\ caf\\u00e9 \\t end\"\n", name: "house", order: 12.5, text: "say \"hi\" \\ café \t end"},
		{config: "  text: plain\n", name: "team", order: 250, text: "plain"},
		{config: "  text: \"\"\n", none: true},
		{config: "  other: {nested: [1, \"x}\"]}\n  text: après\n", name: "team", order: 250, text: "après"},
	}
	for _, name := range teamSections {
		for i, c := range cases {
			t.Run(fmt.Sprintf("%s/%d", name, i), func(t *testing.T) {
				e := load1(t, name, "name: "+name+"\nabi: 1\nhooks: [before_agent_start]\nconfig:\n"+c.config)
				res, err := e.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if c.none {
					if len(res.Ops) != 0 {
						t.Fatalf("ops: %+v", res.Ops)
					}
					return
				}
				if len(res.Ops) != 1 || res.Ops[0].Name != c.name || *res.Ops[0].Order != c.order || res.Ops[0].Text != c.text {
					t.Fatalf("ops: %+v", res.Ops)
				}
			})
		}
	}
}

func TestExamplePolicyGuard(t *testing.T) {
	ctx := context.Background()
	e := load(t, nil, examplePkg(t, "policy-guard"))[0]
	if e.Failure() != abi.FailureAbort {
		t.Fatalf("failure policy %q", e.Failure())
	}
	res, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil)
	if err != nil || len(res.Ops) != 1 || res.Ops[0].Name != "policy" {
		t.Fatalf("before_agent_start: %+v %v", res, err)
	}
	policy := abi.Section{Name: "policy", Order: *res.Ops[0].Order, Text: res.Ops[0].Text, Source: "extension:policy-guard"}
	base := []abi.Section{{Name: "preamble", Text: "p"}, policy, {Name: "rules", Order: 200, Text: "r"}}

	// Intact: nothing to do.
	ar, err := e.Assemble(ctx, abi.AssembleEvent{Sections: base})
	if err != nil || len(ar.Ops) != 0 {
		t.Fatalf("intact: %+v %v", ar, err)
	}
	// Removed or changed by a later extension: put back.
	changed := append([]abi.Section(nil), base...)
	changed[1].Text = "anything goes"
	for name, secs := range map[string][]abi.Section{"removed": {base[0], base[2]}, "changed": changed} {
		ar, err := e.Assemble(ctx, abi.AssembleEvent{Sections: secs})
		if err != nil {
			t.Fatal(name, err)
		}
		out, err := abi.ApplyAssemble(abi.AssembleEvent{Sections: secs}, ar.Ops)
		if err != nil {
			t.Fatal(name, err)
		}
		found := false
		for _, s := range out.Sections {
			if s.Name == "policy" && s.Text == policy.Text && s.Order == policy.Order {
				found = true
			}
		}
		if !found {
			t.Fatalf("%s: policy not restored: %+v", name, out.Sections)
		}
	}
}

func TestExamplePolicyGuardLongPolicy(t *testing.T) {
	// A policy longer than abi.InlineTextMax travels by fetch, not inline.
	ctx := context.Background()
	long := strings.Repeat("Never leak credentials. ", 20)
	e := load1(t, "policy-guard", "name: policy-guard\nabi: 1\nhooks: [before_agent_start, system-prompt/assemble]\nconfig:\n  order: 150\n  text: "+long+"\n")
	policy := abi.Section{Name: "policy", Order: 150, Text: strings.TrimSpace(long)}
	ar, err := e.Assemble(ctx, abi.AssembleEvent{Sections: []abi.Section{policy}})
	if err != nil || len(ar.Ops) != 0 {
		t.Fatalf("intact long policy: %+v %v", ar, err)
	}
	policy.Text = strings.TrimSpace(strings.Repeat("Never leak credentials! ", 20))
	ar, err = e.Assemble(ctx, abi.AssembleEvent{Sections: []abi.Section{policy}})
	if err != nil || len(ar.Ops) != 1 || ar.Ops[0].Text != strings.TrimSpace(long) {
		t.Fatalf("changed long policy: %+v %v", ar, err)
	}
}

func TestExampleYesNo(t *testing.T) {
	e := load(t, nil, examplePkg(t, "yes-no"))[0]
	res, err := e.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "  ?is the sky blue"}, nil)
	if err != nil || res.ForcePrompt == nil || !strings.Contains(*res.ForcePrompt, "yes or no") {
		t.Fatalf("question: %+v %v", res, err)
	}
	res, err = e.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "tell me more?"}, nil)
	if err != nil || res.ForcePrompt != nil || len(res.Ops) != 0 {
		t.Fatalf("plain input: %+v %v", res, err)
	}
}

func TestExampleStandup(t *testing.T) {
	ctx := context.Background()
	e := load(t, nil, examplePkg(t, "standup"))[0]
	if cs := e.Commands(); len(cs) != 1 || cs[0].Name != "standup" || cs[0].ArgumentHint != "[days]" {
		t.Fatalf("commands: %+v", cs)
	}
	for args, want := range map[string]string{"": "last day.", "3": "last 3 days.", " 7 extra": "last 7 days."} {
		res, err := e.Command(ctx, abi.CommandEvent{Name: "standup", Args: args})
		if err != nil || !strings.Contains(res.Send, want) || res.Show != "" {
			t.Fatalf("args %q: %+v %v", args, res, err)
		}
	}
	res, err := e.Command(ctx, abi.CommandEvent{Name: "standup", Args: "soon"})
	if err != nil || res.Send != "" || !strings.Contains(res.Show, "usage") {
		t.Fatalf("bad args: %+v %v", res, err)
	}
}

func TestExampleGitBranch(t *testing.T) {
	ctx := context.Background()
	dir := examplePkg(t, "git-branch")
	pk, ds := ReadPackage(dir)
	if pk == nil {
		t.Fatal(ds)
	}
	// Granted: the variable and the interpolated section.
	e := load(t, Grants{"git-branch": GrantAll(pk.Manifest, pk.SHA256)}, dir)[0]
	res, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ops) != 2 || res.Ops[0].Op != abi.OpSetVariable || *res.Ops[0].Value != "feature/x" ||
		res.Ops[1].Name != "branch" || !res.Ops[1].Interpolate || res.Ops[1].Text != "Current git branch: {{branch}}" {
		t.Fatalf("ops: %+v", res.Ops)
	}
	// Not granted: the load says so and the guest gets nothing.
	exts, diags := testRT.Load(ctx, []string{dir}, nil)
	defer exts[0].Close(ctx)
	if len(diags) != 1 || diags[0].Kind != DiagGrant || !strings.Contains(diags[0].Message, "file .git/HEAD") {
		t.Fatalf("diags: %+v", diags)
	}
	res, err = exts[0].BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil)
	if err != nil || len(res.Ops) != 0 {
		t.Fatalf("ungranted: %+v %v", res, err)
	}
	if !logs.has("git-branch info no branch: read .git/HEAD: permission denied") {
		t.Fatalf("log line missing: %q", logs.lines)
	}
}
