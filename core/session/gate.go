package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/fspath"
	"github.com/piwasm/pi/core/permission"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/tool"
)

// Gate is the session's agent.Hooks: the permission rules decide first,
// then Next (the extensions' tool hooks) sees the calls the rules let
// through. Every decision that is not the plain default is recorded in the
// transcript with its source, so a session file says why a call ran or
// did not.
type Gate struct {
	Checker *permission.Checker
	// Asker answers "ask" rules; nil (print and JSON modes) turns an ask
	// into a deny with a reason the model sees.
	Asker permission.Asker
	Paths permission.Paths
	Next  agent.Hooks
	// Record appends a decision to the transcript; nil: not recorded.
	Record func(Decision) error

	mu sync.Mutex
}

// Decision is a recorded verdict on one tool call.
type Decision struct {
	ToolCallID string `json:"toolCallId"`
	Tool       string `json:"tool"`
	Outcome    string `json:"outcome"`
	Rule       string `json:"rule,omitempty"`
	Source     string `json:"source"`
	Reason     string `json:"reason,omitempty"`
}

// ToolCall applies the rules, then the extensions. Arguments an extension
// replaced go through the rules again: a hook must not turn a call the
// rules allow into one they deny.
func (g *Gate) ToolCall(ctx context.Context, t tool.Tool, call tool.Call) (agent.Verdict, error) {
	if v, blocked := g.decide(ctx, t, call); blocked {
		return v, nil
	}
	if g.Next == nil {
		return agent.Verdict{}, nil
	}
	v, err := g.Next.ToolCall(ctx, t, call)
	switch {
	case err != nil:
		g.record(Decision{ToolCallID: call.ID, Tool: t.Name, Outcome: "deny", Source: "extensions", Reason: err.Error()})
	case v.Block:
		g.record(Decision{ToolCallID: call.ID, Tool: t.Name, Outcome: "deny", Source: v.Source, Reason: v.Reason})
	case v.Args != nil:
		replaced := call
		replaced.Args = v.Args
		if bv, blocked := g.decide(ctx, t, replaced); blocked {
			bv.Reason = fmt.Sprintf("%s (the arguments as %s replaced them)", bv.Reason, v.Source)
			return bv, nil
		}
	}
	return v, err
}

// decide applies the permission rules to a call and records any decision
// that is not the plain default.
func (g *Gate) decide(ctx context.Context, t tool.Tool, call tool.Call) (agent.Verdict, bool) {
	if g.Checker == nil {
		return agent.Verdict{}, false
	}
	req := permission.Request{Tool: t.Name}
	if s, ok := call.Args["command"].(string); ok && t.Name == "bash" {
		req.Command = s
	}
	// Resolving the path looks up each of its components: only when a
	// rule or the default can tell paths apart.
	if g.Checker.ConsultsPath(t.Name) {
		if p := g.pathOf(t, call); p != "" {
			req.Path = p
		}
	}
	if strings.HasPrefix(t.Source, tool.SourceMCP) {
		req.Args = permission.ArgsJSON(call.Args)
	}
	d := g.Checker.Decide(ctx, req, g.Asker, g.Paths)
	if d.Outcome != permission.Allow || d.Source != "default" {
		g.record(Decision{ToolCallID: call.ID, Tool: t.Name, Outcome: string(d.Outcome), Rule: d.Rule, Source: d.Source, Reason: d.Reason})
	}
	if d.Outcome != permission.Allow {
		return agent.Verdict{Block: true, Reason: d.Reason, Source: "permissions"}, true
	}
	return agent.Verdict{}, false
}

func (g *Gate) record(d Decision) {
	if g.Record == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	// A decision that cannot be written must not stop the call's result
	// from being recorded; the transcript write error resurfaces there.
	_ = g.Record(d)
}

// pathOf is the resolved path a file tool's call touches: its path
// argument made absolute (~ and a leading @ as the tools read them),
// symbolic links resolved as the file tools resolve them (dangling links
// too, so a link to ~/.bashrc is judged as ~/.bashrc); the working directory for
// grep, find and ls without one.
func (g *Gate) pathOf(t tool.Tool, call tool.Call) string {
	switch t.Name {
	case "read", "edit", "write", "grep", "find", "ls":
	default:
		return ""
	}
	p, _ := call.Args["path"].(string)
	p = strings.TrimPrefix(p, "@")
	switch {
	case p == "":
		p = g.Paths.Cwd
	case p == "~" || strings.HasPrefix(p, "~/"):
		p = filepath.Join(g.Paths.Home, strings.TrimPrefix(p, "~"))
	case !filepath.IsAbs(p):
		p = filepath.Join(g.Paths.Cwd, p)
	}
	return fspath.Resolve(filepath.Clean(p))
}

// ToolResult passes results to the extensions.
func (g *Gate) ToolResult(ctx context.Context, t tool.Tool, call tool.Call, res tool.Result) (tool.Result, error) {
	if g.Next == nil {
		return res, nil
	}
	return g.Next.ToolResult(ctx, t, call, res)
}

// TurnEnd tells the extensions.
func (g *Gate) TurnEnd(ctx context.Context, m prompt.Message, results []prompt.Message) {
	if g.Next != nil {
		g.Next.TurnEnd(ctx, m, results)
	}
}

// AgentEnd tells the extensions.
func (g *Gate) AgentEnd(ctx context.Context, msgs []prompt.Message) {
	if g.Next != nil {
		g.Next.AgentEnd(ctx, msgs)
	}
}
