package permission

import (
	"context"
	"strings"
	"testing"
)

// TestAskAdviceIsOneThatWorks: with nobody to ask, the refusal of a call an
// ask rule matched must not tell the user to add an allow rule (ask rules
// come first, so it would change nothing); a call asked about by the
// default may still be allowed that way. The rule offered is for the part
// of a compound command the ask rule matched.
func TestAskAdviceIsOneThatWorks(t *testing.T) {
	paths := Paths{Home: "/home/u", Cwd: "/w/proj"}
	rs := mustRules(t, nil, []string{"bash(git push:*)"}, nil)
	c := NewChecker(rs)
	req := Request{Tool: "bash", Command: "echo hi && git push origin main"}

	d := c.Decide(context.Background(), req, nil, paths)
	if d.Outcome != Deny || strings.Contains(d.Reason, `to "allow"`) || !strings.Contains(d.Reason, "interactively") || !strings.Contains(d.Reason, `"bash(git push:*)"`) {
		t.Errorf("ask rule, no asker: %+v", d)
	}
	// Following the old advice really does not help.
	with := NewChecker(mustRules(t, []string{"bash(echo hi:*)", "bash(git push:*)"}, []string{"bash(git push:*)"}, nil))
	if got := with.Check(req); got.Outcome != Ask {
		t.Fatalf("an allow rule lifted an ask rule: %+v", got)
	}

	a := &fakeAsker{answer: Answer{Choice: AllowAlways}}
	if d := c.Decide(context.Background(), req, a, paths); d.Outcome != Allow {
		t.Fatalf("allow always: %+v", d)
	}
	if len(a.asked) != 1 || a.asked[0].Suggested != "bash(git push:*)" {
		t.Fatalf("suggested %q, want the rule for the part the ask rule matched", a.asked[0].Suggested)
	}
	// The answer holds for the rest of the session, in other compounds too.
	for _, cmd := range []string{"echo hi && git push origin main", "make && git push", "git push --tags"} {
		if got := c.Check(Request{Tool: "bash", Command: cmd}); got.Outcome != Allow {
			t.Errorf("%q after allow always: %+v", cmd, got)
		}
	}
	if got := c.Check(Request{Tool: "bash", Command: "git push && git push -f"}); got.Outcome != Allow {
		t.Errorf("both parts allowed for the session: %+v", got)
	}

	def := NewChecker(Rules{})
	def.Default = func(Request) Outcome { return Ask }
	d = def.Decide(context.Background(), Request{Tool: "bash", Command: "make test"}, nil, paths)
	if d.Outcome != Deny || !strings.Contains(d.Reason, `adding "bash(make test:*)" to "allow"`) {
		t.Errorf("default ask, no asker: %+v", d)
	}
}

// TestGitGlobalOptionsDoNotHideTheSubcommand: git's global options before
// the subcommand do not slip a command past deny and ask rules written for
// the subcommand, and do not let an allow rule cover more than it says.
func TestGitGlobalOptionsDoNotHideTheSubcommand(t *testing.T) {
	c := NewChecker(mustRules(t, []string{"bash(git log:*)"}, []string{"bash(git push:*)"}, []string{"bash(git reset --hard:*)"}))
	for _, tt := range []struct {
		cmd  string
		want Outcome
	}{
		{"git push", Ask},
		{"git -C . push origin main", Ask},
		{"git -c user.name=x --no-pager push", Ask},
		{"git --git-dir=.git push", Ask},
		{"sudo git -C /srv/repo push", Ask},
		{"git -C sub reset --hard HEAD~1", Deny},
		{"git log --oneline", Allow},
		{"git -C . status", Allow}, // the default: no rule applies
	} {
		if got := c.Check(Request{Tool: "bash", Command: tt.cmd}); got.Outcome != tt.want {
			t.Errorf("%q: %s (%s), want %s", tt.cmd, got.Outcome, got.Reason, tt.want)
		}
	}
	// An allow rule for git log does not cover git log behind -c, which can
	// change what runs (core.pager): it falls to the default, not the rule.
	strict := NewChecker(mustRules(t, []string{"bash(git log:*)"}, nil, nil))
	strict.Default = func(Request) Outcome { return Ask }
	if got := strict.Check(Request{Tool: "bash", Command: "git -c core.pager=sh log"}); got.Outcome != Ask {
		t.Errorf("git -c ... log allowed by bash(git log:*): %+v", got)
	}
	if got := strict.Check(Request{Tool: "bash", Command: "git log -1"}); got.Outcome != Allow {
		t.Errorf("git log: %+v", got)
	}
}
