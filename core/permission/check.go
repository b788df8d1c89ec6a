package permission

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
)

// Outcome is what a decision says about a call.
type Outcome string

// Outcomes.
const (
	Allow Outcome = "allow"
	Ask   Outcome = "ask"
	Deny  Outcome = "deny"
)

// Decision is the verdict on one call, with where it came from, for the
// transcript and for the model when the call is refused.
type Decision struct {
	Outcome Outcome `json:"outcome"`
	// Rule is the rule that decided, as written; empty for the default.
	Rule string `json:"rule,omitempty"`
	// Source is the rule's settings file, "session" (an earlier answer),
	// "user" (an answer to this call) or "default".
	Source string `json:"source"`
	// Reason says why, in words the model and the user can act on.
	Reason string `json:"reason,omitempty"`
}

// Request is one tool call as the rules see it.
type Request struct {
	Tool string
	// Command is the bash script, for bash.
	Command string
	// Path is the resolved path the call touches, for the file tools (the
	// working directory when grep, find or ls name none).
	Path string
	// Args are an MCP tool's arguments as compact JSON (keys sorted), which
	// its rules' patterns match.
	Args string
}

// Checker applies rules. It is safe for concurrent use; answers of
// "always" add session rules to it.
type Checker struct {
	rules Rules
	// Default is the outcome when no rule decides; nil means Allow. The
	// caller sets it from its mode (for example ask for destructive tools
	// when the sandbox is off).
	Default func(Request) Outcome

	mu      sync.Mutex
	session []Rule
}

// NewChecker returns a Checker over rules.
func NewChecker(rules Rules) *Checker { return &Checker{rules: rules} }

// Check decides req without asking anyone: deny rules first, then allow
// rules the user added this session, then ask rules, then allow rules,
// then the default. A bash command is denied (or asked about) when any of
// its simple commands matches; it is allowed by rules only when every one
// of them is.
func (c *Checker) Check(req Request) Decision {
	req.Tool = strings.ToLower(req.Tool)
	m := newMatcher(req)
	if r, ok := m.any(c.rules.Deny); ok {
		return Decision{Outcome: Deny, Rule: r.String(), Source: r.Source, Reason: fmt.Sprintf("refused by the deny rule %s in %s", r, r.Source)}
	}
	c.mu.Lock()
	session := append([]Rule(nil), c.session...)
	c.mu.Unlock()
	if r, ok := m.all(session); ok {
		return Decision{Outcome: Allow, Rule: r.String(), Source: "session", Reason: "allowed by the user earlier in this session"}
	}
	if r, _, ok := m.askMatch(c.rules.Ask, session); ok {
		return Decision{Outcome: Ask, Rule: r.String(), Source: r.Source, Reason: fmt.Sprintf("the ask rule %s in %s wants the user's approval", r, r.Source)}
	}
	if r, ok := m.all(c.rules.Allow); ok {
		return Decision{Outcome: Allow, Rule: r.String(), Source: r.Source}
	}
	out := Allow
	if c.Default != nil {
		out = c.Default(req)
	}
	d := Decision{Outcome: out, Source: "default"}
	if out != Allow {
		d.Reason = fmt.Sprintf("no rule allows %s here, and the default is %s", req.Tool, out)
	}
	return d
}

// matcher holds a request's parsed form.
type matcher struct {
	req      Request
	cmds     []Command
	parseErr error
}

func newMatcher(req Request) *matcher {
	m := &matcher{req: req}
	if req.Tool == "bash" {
		m.cmds, m.parseErr = Commands(req.Command)
	}
	return m
}

// any returns the first rule for the tool that matches any part of the
// call (the deny and ask test). For bash, a rule matches a call when it
// could match any form of any of its simple commands: a script that does
// not parse, a program name built at run time, eval of a run-time string
// or a sourced file match every bash rule (fail closed).
func (m *matcher) any(rules []Rule) (Rule, bool) {
	for _, r := range rules {
		if !r.forTool(m.req.Tool) {
			continue
		}
		if r.Pattern == "" {
			return r, true
		}
		if m.req.Tool != "bash" {
			if r.matchPath(m.req.Path) || r.matchArgs(m.req.Args) {
				return r, true
			}
			continue
		}
		for _, c := range m.cmds {
			if r.matchCommand(c) {
				return r, true
			}
		}
	}
	return Rule{}, false
}

// askMatch is any for ask rules, except that a simple command the user
// already allowed for the session is not asked about again: after "always
// allow bash(git push:*)", "make && git push" runs without a question. For
// bash it also returns the simple command the rule matched, which the
// suggested rule is made from.
func (m *matcher) askMatch(rules, session []Rule) (Rule, *Command, bool) {
	if m.req.Tool != "bash" {
		r, ok := m.any(rules)
		return r, nil, ok
	}
	for _, r := range rules {
		if !r.forTool(m.req.Tool) {
			continue
		}
		for i := range m.cmds {
			c := &m.cmds[i]
			if _, ok := coveredBy(*c, session, m.req.Tool); ok {
				continue
			}
			if r.Pattern == "" || r.matchCommand(*c) {
				return r, c, true
			}
		}
	}
	return Rule{}, nil, false
}

func (r Rule) matchCommand(c Command) bool {
	if r.couldMatch(c.Form) {
		return true
	}
	for _, in := range c.Inner {
		if r.couldMatch(in) {
			return true
		}
	}
	return false
}

// all returns a rule that allows the call: a pattern-less rule for the
// tool, a path rule matching the path, or, for bash, rules covering every
// simple command. A command whose name is not literal is never covered;
// a command run through sudo or doas is covered only by a rule naming the
// wrapper. The first rule used is returned.
func (m *matcher) all(rules []Rule) (Rule, bool) {
	var first *Rule
	for i, r := range rules {
		if !r.forTool(m.req.Tool) {
			continue
		}
		if r.Pattern == "" || (m.req.Tool != "bash" && (r.matchPath(m.req.Path) || r.matchArgs(m.req.Args))) {
			return r, true
		}
		if first == nil && m.req.Tool == "bash" {
			first = &rules[i]
		}
	}
	if first == nil || m.parseErr != nil || len(m.cmds) == 0 {
		return Rule{}, false
	}
	var used *Rule
	for _, c := range m.cmds {
		r, ok := coveredBy(c, rules, m.req.Tool)
		if !ok {
			return Rule{}, false
		}
		if used == nil {
			used = r
		}
	}
	return *used, true
}

// coveredBy returns an allow rule covering c as written, or what a
// wrapper in it runs (not through sudo or doas, and not a normal form,
// which only says what the command probably does).
func coveredBy(c Command, rules []Rule, tool string) (*Rule, bool) {
	for i := range rules {
		r := &rules[i]
		if r.Tool != tool || r.Pattern == "" {
			continue
		}
		if !c.Dynamic() && !c.Open && r.matchWords(c.Words) {
			return r, true
		}
		for _, in := range c.Inner {
			if !in.Privileged && !in.Dynamic() && !in.CheckOnly && !in.Open && r.matchWords(in.Words) {
				return r, true
			}
		}
	}
	return nil, false
}

// Choice is a person's answer to a question.
type Choice int

// Choices.
const (
	// DenyCall refuses this call.
	DenyCall Choice = iota
	// AllowOnce runs this call only.
	AllowOnce
	// AllowAlways runs this call and adds Answer.Rule (or the suggested
	// rule) to the session's allow rules.
	AllowAlways
)

// Question is what the interactive session or an RPC client is asked.
type Question struct {
	Tool    string `json:"tool"`
	Command string `json:"command,omitempty"`
	Path    string `json:"path,omitempty"`
	// Rule and Source name the ask rule (empty for a default of ask).
	Rule   string `json:"rule,omitempty"`
	Source string `json:"source,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Suggested is the rule to offer for "allow always".
	Suggested string `json:"suggested"`
}

// Answer is a person's answer. Rule, for AllowAlways, replaces the
// suggested rule; it must parse and be for the same tool.
type Answer struct {
	Choice Choice `json:"choice"`
	Rule   string `json:"rule,omitempty"`
}

// Asker puts a question to a person. Implementations must return when ctx
// is done.
type Asker interface {
	Ask(ctx context.Context, q Question) (Answer, error)
}

// Decide is Check, then, for an ask, the question: with a nil asker (print
// and JSON modes) an ask becomes a deny whose reason tells the model and
// the user how to allow the call, so pi never waits; an error or a
// cancelled context also denies. paths resolves a rule typed as an
// answer.
func (c *Checker) Decide(ctx context.Context, req Request, asker Asker, paths Paths) Decision {
	d := c.Check(req)
	if d.Outcome != Ask {
		return d
	}
	suggested := Suggest(req, paths)
	if d.Rule != "" && strings.EqualFold(req.Tool, "bash") {
		c.mu.Lock()
		session := append([]Rule(nil), c.session...)
		c.mu.Unlock()
		if _, cmd, ok := newMatcher(Request{Tool: "bash", Command: req.Command}).askMatch(c.rules.Ask, session); ok && cmd != nil {
			suggested = suggestCommand(*cmd)
		}
	}
	q := Question{Tool: req.Tool, Command: req.Command, Path: req.Path, Rule: d.Rule, Source: d.Source, Reason: d.Reason, Suggested: suggested}
	if asker == nil {
		// Ask rules come before allow rules, so an allow rule cannot
		// lift an ask rule's question: say what would.
		how := fmt.Sprintf("the user can allow it by adding %q to \"allow\" under \"permissions\" in settings, or by running pi interactively", q.Suggested)
		if d.Rule != "" {
			how = fmt.Sprintf("the user can approve it by running pi interactively, or remove or narrow the ask rule %q in %s", d.Rule, d.Source)
		}
		return Decision{Outcome: Deny, Rule: d.Rule, Source: d.Source, Reason: fmt.Sprintf(
			"this call needs the user's approval (%s) and nobody can be asked in this mode. Do not retry it; %s", d.Reason, how)}
	}
	a, err := asker.Ask(ctx, q)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		return Decision{Outcome: Deny, Rule: d.Rule, Source: d.Source, Reason: fmt.Sprintf("the user could not be asked (%v)", err)}
	}
	switch a.Choice {
	case AllowOnce:
		return Decision{Outcome: Allow, Rule: d.Rule, Source: "user", Reason: "allowed once by the user"}
	case AllowAlways:
		text := a.Rule
		if text == "" {
			text = q.Suggested
		}
		r, err := ParseRule(text, paths)
		if err != nil || !r.forTool(strings.ToLower(req.Tool)) {
			return Decision{Outcome: Allow, Rule: d.Rule, Source: "user", Reason: fmt.Sprintf("allowed once by the user (the rule %q was not kept: it does not parse or is for another tool)", text)}
		}
		r.Source = "session"
		c.mu.Lock()
		c.session = append(c.session, r)
		c.mu.Unlock()
		return Decision{Outcome: Allow, Rule: r.String(), Source: "user", Reason: "allowed by the user for the rest of the session"}
	}
	return Decision{Outcome: Deny, Rule: d.Rule, Source: "user", Reason: "the user refused this call"}
}

// Suggest proposes a rule that would allow req: for bash, the first one or
// two words of its first command in prefix form (bash(git push:*)); for a
// path tool, the path's directory (edit(/src/app/**)); otherwise the tool.
func Suggest(req Request, paths Paths) string {
	tool := strings.ToLower(req.Tool)
	switch {
	case tool == "bash":
		cmds, err := Commands(req.Command)
		if err != nil || len(cmds) == 0 {
			return tool
		}
		return suggestCommand(cmds[0])
	case pathTools[tool] && req.Path != "":
		dir := filepath.Dir(req.Path)
		if paths.Cwd != "" && (req.Path == paths.Cwd || strings.HasPrefix(req.Path, paths.Cwd+string(filepath.Separator))) {
			dir = paths.Cwd
		}
		return tool + "(" + filepath.ToSlash(dir) + "/**)"
	}
	return tool
}

// suggestCommand proposes bash(first words:*) for one simple command, or
// plain "bash" when its name is not literal or its words would not read
// back as a rule.
func suggestCommand(c Command) string {
	if c.Dynamic() {
		return "bash"
	}
	w := c.Words
	n := 1
	if len(w) > 1 && !strings.HasPrefix(w[1], "-") && !strings.ContainsAny(w[1], "/.=$*?") {
		n = 2
	}
	for _, x := range w[:n] {
		if strings.ContainsAny(x, " ()\"'\\") {
			return "bash"
		}
	}
	return "bash(" + strings.Join(w[:n], " ") + ":*)"
}

// EntryRefused reports whether a deny or ask rule for tool, or for read,
// covers path, an entry that grep, find or ls passes below the path it
// was given (which the gate judged as a whole). Nobody can be asked about
// each entry, so an ask rule leaves the entry out as a deny rule does:
// with "read(~/.ssh/**)" denied, grep over ~ must not show a key's line.
func (c *Checker) EntryRefused(tool, path string) (Rule, bool) {
	tool = strings.ToLower(tool)
	for _, t := range []string{tool, "read"} {
		m := &matcher{req: Request{Tool: t, Path: path}}
		if r, ok := m.any(c.rules.Deny); ok {
			return r, true
		}
		if r, ok := m.any(c.rules.Ask); ok {
			return r, true
		}
	}
	return Rule{}, false
}

// ConsultsPath reports whether deciding a call of tool can depend on the
// path it touches: some rule is for the tool (in any list, the session's
// included, with a pattern or without, since an ask puts the path to the
// user), or a Default decides. Without one every path gets the same
// decision, so the caller need not resolve the path, which costs a file
// system lookup per component.
func (c *Checker) ConsultsPath(tool string) bool {
	if c.Default != nil {
		return true
	}
	tool = strings.ToLower(tool)
	for _, list := range [][]Rule{c.rules.Deny, c.rules.Ask, c.rules.Allow} {
		for i := range list {
			if list[i].forTool(tool) {
				return true
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.session {
		if c.session[i].forTool(tool) {
			return true
		}
	}
	return false
}

// DeniedPath reports whether a deny rule for tool covers path, the path a
// file tool resolved itself just before opening it. Only deny rules: an
// ask rule was put to the user (or refused) by the gate already.
func (c *Checker) DeniedPath(tool, path string) (Rule, bool) {
	m := &matcher{req: Request{Tool: strings.ToLower(tool), Path: path}}
	return m.any(c.rules.Deny)
}
