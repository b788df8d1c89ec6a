//go:build !wasip1

package sdk

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/piwasm/pi/abi"
)

// TestHarnessNewerHooks runs the handlers of the loop and session hooks on
// the host: each one sees its event and its answer comes back decoded.
func TestHarnessNewerHooks(t *testing.T) {
	var seen []string
	t.Cleanup(func() {
		turnEnd, agentEnd, beforeCompact, onContext, beforeProviderRequest = nil, nil, nil, nil, nil
		sessionStart, sessionShutdown, sessionBeforeSwitch, sessionBeforeFork = nil, nil, nil, nil
	})
	OnTurnEnd(func(ev *abi.TurnEndEvent) error {
		seen = append(seen, "turn_end")
		Log(abi.LogInfo, "turn")
		return nil
	})
	OnAgentEnd(func(ev *abi.AgentEndEvent) error { seen = append(seen, "agent_end"); return nil })
	OnSessionBeforeCompact(func(ev *abi.SessionBeforeCompactEvent) (abi.SessionBeforeCompactResult, error) {
		return abi.SessionBeforeCompactResult{Cancel: ev.Reason == "manual"}, nil
	})
	OnContext(func(ev *abi.ContextEvent) (abi.ContextResult, error) {
		return abi.ContextResult{Messages: ev.Messages[:1]}, nil
	})
	OnBeforeProviderRequest(func(ev *abi.BeforeProviderRequestEvent) (abi.BeforeProviderRequestResult, error) {
		return abi.BeforeProviderRequestResult{Body: json.RawMessage(`{"model":"` + ev.Model + `-x"}`)}, nil
	})
	OnSessionStart(func(ev *abi.SessionStartEvent) error { seen = append(seen, "start:"+ev.Reason); return nil })
	OnSessionShutdown(func(ev *abi.SessionShutdownEvent) error { seen = append(seen, "shutdown:"+ev.Reason); return nil })
	OnSessionBeforeSwitch(func(ev *abi.SessionBeforeSwitchEvent) (abi.SessionCancelResult, error) {
		return abi.SessionCancelResult{Cancel: ev.Reason == "new"}, nil
	})
	OnSessionBeforeFork(func(ev *abi.SessionBeforeForkEvent) (abi.SessionBeforeForkResult, error) {
		return abi.SessionBeforeForkResult{SkipConversationRestore: ev.Position == abi.ForkAt}, nil
	})

	h := &Harness{}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(h.TurnEnd(abi.TurnEndEvent{TurnIndex: 1}))
	must(h.AgentEnd(abi.AgentEndEvent{}))
	must(h.SessionStart(abi.SessionStartEvent{Reason: "startup"}))
	must(h.SessionShutdown(abi.SessionShutdownEvent{Reason: "quit"}))
	if got := len(h.Logs); got != 1 {
		t.Errorf("logs %q", h.Logs)
	}
	if want := "[turn_end agent_end start:startup shutdown:quit]"; fmt.Sprint(seen) != want {
		t.Errorf("seen %v, want %s", seen, want)
	}
	c, err := h.SessionBeforeCompact(abi.SessionBeforeCompactEvent{Reason: "manual"})
	must(err)
	if !c.Cancel {
		t.Error("compaction not cancelled")
	}
	ctx, err := h.Context(abi.ContextEvent{Messages: []json.RawMessage{json.RawMessage(`{"a":1}`), json.RawMessage(`{"b":2}`)}})
	must(err)
	if len(ctx.Messages) != 1 || string(ctx.Messages[0]) != `{"a":1}` {
		t.Errorf("context %s", ctx.Messages)
	}
	p, err := h.BeforeProviderRequest(abi.BeforeProviderRequestEvent{Model: "m", Body: json.RawMessage(`{}`)})
	must(err)
	if string(p.Body) != `{"model":"m-x"}` {
		t.Errorf("body %s", p.Body)
	}
	s, err := h.SessionBeforeSwitch(abi.SessionBeforeSwitchEvent{Reason: "new"})
	must(err)
	if !s.Cancel {
		t.Error("switch not cancelled")
	}
	f, err := h.SessionBeforeFork(abi.SessionBeforeForkEvent{EntryID: "e", Position: abi.ForkAt})
	must(err)
	if !f.SkipConversationRestore {
		t.Error("fork answer lost")
	}
}
