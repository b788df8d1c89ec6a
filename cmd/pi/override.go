package main

import (
	"context"
	"sync"

	"github.com/piwasm/pi/core/permission"
	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
)

// sandboxOverride lets a person run a command the sandbox refused outside
// it: once, or for a pattern for the rest of the session (AGENT.md §6).
// It only exists where someone can be asked (the interactive session,
// RPC); print and JSON modes keep the refusal and its note for the model.
type sandboxOverride struct {
	asker  permission.Asker
	policy *sandbox.Policy
	paths  permission.Paths
	// unconfined runs bash without the sandbox.
	unconfined tool.RunFunc
	// record puts the decision into the session.
	record func(session.Decision)

	mu    sync.Mutex
	rules []permission.Rule
}

// wrap returns bash with the override around its confined run.
func (o *sandboxOverride) wrap(t tool.Tool) tool.Tool {
	confined := t.Run
	t.Run = func(ctx context.Context, call tool.Call, update tool.Update) (tool.Result, error) {
		cmd, _ := call.Args["command"].(string)
		if rule, ok := o.covered(cmd); ok {
			o.record(session.Decision{ToolCallID: call.ID, Tool: "bash", Outcome: "allow", Rule: rule, Source: "user", Reason: "run outside the sandbox: the user allowed this pattern earlier in the session"})
			return o.unconfined(ctx, call, update)
		}
		res, err := confined(ctx, call, update)
		if err != nil || !res.IsError || ctx.Err() != nil || o.policy.Explain(res.Text(), 1) == "" {
			return res, err
		}
		req := permission.Request{Tool: "bash", Command: cmd}
		q := permission.Question{Tool: "bash", Command: cmd, Source: "sandbox",
			Reason: "the sandbox refused it; run it outside the sandbox?", Suggested: permission.Suggest(req, o.paths)}
		a, aerr := o.asker.Ask(ctx, q)
		if aerr != nil || a.Choice == permission.DenyCall {
			return res, err
		}
		d := session.Decision{ToolCallID: call.ID, Tool: "bash", Outcome: "allow", Source: "user", Reason: "run outside the sandbox once, after a denial"}
		if a.Choice == permission.AllowAlways {
			text := a.Rule
			if text == "" {
				text = q.Suggested
			}
			if r, perr := permission.ParseRule(text, o.paths); perr == nil && r.Tool == "bash" {
				o.mu.Lock()
				o.rules = append(o.rules, r)
				o.mu.Unlock()
				d.Rule, d.Reason = r.String(), "run outside the sandbox, and so are later commands this pattern covers in this session"
			}
		}
		o.record(d)
		return o.unconfined(ctx, call, update)
	}
	return t
}

// covered reports whether every command of script matches a pattern the
// person allowed outside the sandbox.
func (o *sandboxOverride) covered(script string) (string, bool) {
	o.mu.Lock()
	rules := append([]permission.Rule(nil), o.rules...)
	o.mu.Unlock()
	if len(rules) == 0 || script == "" {
		return "", false
	}
	c := permission.NewChecker(permission.Rules{Allow: rules})
	c.Default = func(permission.Request) permission.Outcome { return permission.Deny }
	d := c.Check(permission.Request{Tool: "bash", Command: script})
	return d.Rule, d.Outcome == permission.Allow
}
