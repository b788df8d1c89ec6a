package hooks

import (
	"context"
	"errors"
	"testing"

	"github.com/piwasm/pi/abi"
)

type compactExt struct {
	name, policy string
	res          abi.SessionBeforeCompactResult
	err          error
	called       *int
}

func (e compactExt) Name() string                { return e.name }
func (e compactExt) Handles(h string) bool       { return h == abi.HookSessionBeforeCompact }
func (e compactExt) FailurePolicy() string       { return e.policy }
func (e compactExt) Commands() []abi.CommandInfo { return nil }
func (e compactExt) BeforeAgentStart(context.Context, abi.BeforeAgentStartEvent, Fetcher) (abi.BeforeAgentStartResult, error) {
	return abi.BeforeAgentStartResult{}, nil
}
func (e compactExt) Assemble(context.Context, abi.AssembleEvent, Fetcher) (abi.AssembleResult, error) {
	return abi.AssembleResult{}, nil
}
func (e compactExt) Input(context.Context, abi.InputEvent, Fetcher) (abi.InputResult, error) {
	return abi.InputResult{}, nil
}
func (e compactExt) Command(context.Context, abi.CommandEvent, Fetcher) (abi.CommandResult, error) {
	return abi.CommandResult{}, nil
}
func (e compactExt) SessionBeforeCompact(context.Context, abi.SessionBeforeCompactEvent, Fetcher) (abi.SessionBeforeCompactResult, error) {
	*e.called++
	return e.res, e.err
}

// TestSessionBeforeCompact: the first extension that cancels or supplies a
// summary decides; one that fails (or answers both) is skipped with a
// diagnostic so pi writes the summary, unless its policy is abort.
func TestSessionBeforeCompact(t *testing.T) {
	n := 0
	failing := compactExt{name: "broken", policy: PolicySkip, err: errors.New("trap"), called: &n}
	invalid := compactExt{name: "both", policy: PolicySkip, res: abi.SessionBeforeCompactResult{Cancel: true, Compaction: &abi.CompactionSummary{Summary: "x"}}, called: &n}
	supplier := compactExt{name: "notes", policy: PolicySkip, res: abi.SessionBeforeCompactResult{Compaction: &abi.CompactionSummary{Summary: "mine"}}, called: &n}
	later := compactExt{name: "later", policy: PolicySkip, res: abi.SessionBeforeCompactResult{Cancel: true}, called: &n}

	d := New([]Handler{failing, invalid, supplier, later})
	res, by, err := d.SessionBeforeCompact(context.Background(), abi.SessionBeforeCompactEvent{Reason: "manual"})
	if err != nil || by != "notes" || res.Compaction == nil || res.Compaction.Summary != "mine" || n != 3 {
		t.Fatalf("res %+v by %q err %v calls %d", res, by, err, n)
	}
	if len(d.Diagnostics()) != 2 {
		t.Fatalf("diagnostics %+v", d.Diagnostics())
	}

	d = New([]Handler{failing})
	res, _, err = d.SessionBeforeCompact(context.Background(), abi.SessionBeforeCompactEvent{})
	if err != nil || res.Cancel || res.Compaction != nil {
		t.Fatalf("a failing skip hook must leave the summary to pi: %+v %v", res, err)
	}

	failing.policy = PolicyAbort
	d = New([]Handler{failing})
	var abort *AbortError
	if _, _, err := d.SessionBeforeCompact(context.Background(), abi.SessionBeforeCompactEvent{}); !errors.As(err, &abort) {
		t.Fatalf("abort policy: %v", err)
	}
}
