package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/permission"
	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
)

type scriptedAsker struct {
	answers []permission.Choice
	asked   []permission.Question
}

func (s *scriptedAsker) Ask(_ context.Context, q permission.Question) (permission.Answer, error) {
	s.asked = append(s.asked, q)
	c := s.answers[0]
	s.answers = s.answers[1:]
	return permission.Answer{Choice: c}, nil
}

// TestSandboxOverride: a command the sandbox refused is offered to run
// unconfined; "always" covers later commands of the same pattern without
// asking; "no" keeps the refusal; every override is recorded.
func TestSandboxOverride(t *testing.T) {
	proj := t.TempDir()
	home, _ := os.UserHomeDir()
	p, err := sandbox.Build(sandbox.Inputs{Cwd: proj, Home: home, Tmp: os.TempDir(), Getenv: os.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Confined() {
		t.Skipf("this kernel cannot confine: %s", p.Notice())
	}
	denied := "touch: cannot touch '/usr/pi-override-test': Permission denied"
	confinedRuns, unconfinedRuns := 0, 0
	asker := &scriptedAsker{answers: []permission.Choice{permission.AllowAlways, permission.DenyCall}}
	var decisions []session.Decision
	o := &sandboxOverride{asker: asker, policy: p, paths: permission.Paths{Home: home, Cwd: proj},
		unconfined: func(context.Context, tool.Call, tool.Update) (tool.Result, error) {
			unconfinedRuns++
			return tool.TextResult("ran unconfined"), nil
		},
		record: func(d session.Decision) { decisions = append(decisions, d) }}
	bash := o.wrap(tool.Tool{Name: "bash", Run: func(_ context.Context, c tool.Call, _ tool.Update) (tool.Result, error) {
		confinedRuns++
		if strings.HasPrefix(c.Args["command"].(string), "echo") {
			return tool.TextResult("fine"), nil
		}
		return tool.ErrorResult("%s\n\nCommand exited with code 1", denied), nil
	}})
	run := func(cmd string) string {
		res, err := bash.Run(context.Background(), tool.Call{ID: "x", Name: "bash", Args: map[string]any{"command": cmd}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Text()
	}
	if got := run("echo hi"); got != "fine" || len(asker.asked) != 0 {
		t.Fatalf("a command that worked was questioned: %q", got)
	}
	if got := run("touch /usr/pi-override-test"); got != "ran unconfined" {
		t.Fatalf("allowed override did not run unconfined: %q", got)
	}
	if q := asker.asked[0]; q.Source != "sandbox" || q.Suggested != "bash(touch:*)" {
		t.Errorf("question: %+v", q)
	}
	// The pattern now covers touch without asking or trying the sandbox.
	before := confinedRuns
	if got := run("touch /usr/other"); got != "ran unconfined" || len(asker.asked) != 1 || confinedRuns != before {
		t.Errorf("pattern not applied: %q, asked %d", got, len(asker.asked))
	}
	// Another command, refused by the person: the sandbox's answer stays.
	if got := run("cp a /usr/b"); !strings.Contains(got, "Permission denied") || unconfinedRuns != 2 {
		t.Errorf("refused override: %q (unconfined runs %d)", got, unconfinedRuns)
	}
	if len(decisions) != 2 || decisions[0].Rule != "bash(touch:*)" || decisions[1].Source != "user" {
		t.Errorf("decisions: %+v", decisions)
	}
}
