package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/piwasm/pi/abi"
)

// toolFake is a handler taking part in the loop.
type toolFake struct {
	fake
	call   func(abi.ToolCallEvent, Fetcher) (abi.ToolCallResult, error)
	result func(abi.ToolResultEvent) (abi.ToolResultPatch, error)
	turns  int
	ended  int
}

func (f *toolFake) ToolCall(_ context.Context, ev abi.ToolCallEvent, fe Fetcher) (abi.ToolCallResult, error) {
	return f.call(ev, fe)
}
func (f *toolFake) ToolResult(_ context.Context, ev abi.ToolResultEvent, _ Fetcher) (abi.ToolResultPatch, error) {
	return f.result(ev)
}
func (f *toolFake) TurnEnd(context.Context, abi.TurnEndEvent, Fetcher) error {
	f.turns++
	if f.policy == PolicyAbort {
		return errors.New("observer broke")
	}
	return nil
}
func (f *toolFake) AgentEnd(context.Context, abi.AgentEndEvent, Fetcher) error { f.ended++; return nil }

func caller(name, policy string, call func(abi.ToolCallEvent, Fetcher) (abi.ToolCallResult, error)) *toolFake {
	return &toolFake{fake: fake{name: name, policy: policy, hooks: []string{abi.HookToolCall}}, call: call}
}

func bashEvent(cmd string) abi.ToolCallEvent {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return abi.ToolCallEvent{ToolName: "bash", Source: "builtin", Input: in}
}

// wantCommand is a validator for bash: a string command is required.
func wantCommand(in json.RawMessage) (json.RawMessage, error) {
	var v map[string]any
	if err := json.Unmarshal(in, &v); err != nil {
		return nil, err
	}
	if _, ok := v["command"].(string); !ok {
		return nil, errors.New("command: want a string")
	}
	return in, nil
}

func TestToolCallChain(t *testing.T) {
	var sawSecond string
	rewrite := caller("rewrite", "", func(ev abi.ToolCallEvent, fe Fetcher) (abi.ToolCallResult, error) {
		if ev.ToolCallID != "" {
			t.Errorf("the call id must be fetched, not inlined: %q", ev.ToolCallID)
		}
		if id, ok := fe(abi.KeyToolCallID); !ok || string(id) != "call-1" {
			t.Errorf("fetch call id: %q %v", id, ok)
		}
		return abi.ToolCallResult{Input: json.RawMessage(` {"command":"ls -la"} `)}, nil
	})
	second := caller("second", "", func(ev abi.ToolCallEvent, _ Fetcher) (abi.ToolCallResult, error) {
		sawSecond = string(ev.Input)
		return abi.ToolCallResult{}, nil
	})
	d := New([]Handler{rewrite, second})
	v, err := d.ToolCall(context.Background(), bashEvent("ls"), "call-1", wantCommand)
	if err != nil || v.Block {
		t.Fatalf("verdict %+v, %v", v, err)
	}
	if string(v.Input) != `{"command":"ls -la"}` || v.Extension != "rewrite" {
		t.Errorf("replacement: %+v", v)
	}
	if sawSecond != `{"command":"ls -la"}` {
		t.Errorf("a later extension must see the replaced input, saw %s", sawSecond)
	}
}

func TestToolCallFirstBlockWins(t *testing.T) {
	asked := 0
	block := func(name string) *toolFake {
		return caller(name, "", func(abi.ToolCallEvent, Fetcher) (abi.ToolCallResult, error) {
			asked++
			return abi.ToolCallResult{Block: true, Reason: "no by " + name}, nil
		})
	}
	d := New([]Handler{block("one"), block("two")})
	v, err := d.ToolCall(context.Background(), bashEvent("rm -rf /"), "c", nil)
	if err != nil || !v.Block || v.Extension != "one" || v.Reason != "no by one" || asked != 1 {
		t.Fatalf("verdict %+v err %v asked %d", v, err, asked)
	}
}

func TestToolCallPolicies(t *testing.T) {
	crash := func(abi.ToolCallEvent, Fetcher) (abi.ToolCallResult, error) {
		return abi.ToolCallResult{}, errors.New("trap: unreachable")
	}
	reached := false
	after := caller("after", "", func(abi.ToolCallEvent, Fetcher) (abi.ToolCallResult, error) {
		reached = true
		return abi.ToolCallResult{}, nil
	})

	// skip: passed over, with a diagnostic; the call goes on.
	d := New([]Handler{caller("flaky", PolicySkip, crash), after})
	v, err := d.ToolCall(context.Background(), bashEvent("ls"), "c", nil)
	if err != nil || v.Block || !reached {
		t.Fatalf("skip: %+v %v reached=%v", v, err, reached)
	}
	if ds := d.Diagnostics(); len(ds) != 1 || ds[0].Extension != "flaky" || !strings.Contains(ds[0].Message, "failed in "+abi.HookToolCall) {
		t.Fatalf("skip diagnostics: %+v", ds)
	}

	// abort: the call is blocked, naming the extension.
	reached = false
	d = New([]Handler{caller("guard", PolicyAbort, crash), after})
	_, err = d.ToolCall(context.Background(), bashEvent("ls"), "c", nil)
	var ae *AbortError
	if !errors.As(err, &ae) || ae.Extension != "guard" || !strings.Contains(err.Error(), "guard") || reached {
		t.Fatalf("abort: %v reached=%v", err, reached)
	}

	// A handler that declares the hook but cannot run it fails by policy.
	d = New([]Handler{&fake{name: "plain", policy: PolicyAbort, hooks: []string{abi.HookToolCall}}})
	if _, err := d.ToolCall(context.Background(), bashEvent("ls"), "c", nil); !errors.As(err, &ae) {
		t.Fatalf("no tool handler: %v", err)
	}
}

func TestToolCallInvalidReplacementRefused(t *testing.T) {
	for _, in := range []string{`"ls"`, `[1]`, `{"command":1}`, `{"command":`, `null`} {
		for _, policy := range []string{PolicySkip, PolicyAbort} {
			bad := caller("bad", policy, func(abi.ToolCallEvent, Fetcher) (abi.ToolCallResult, error) {
				return abi.ToolCallResult{Input: json.RawMessage(in)}, nil
			})
			d := New([]Handler{bad})
			v, err := d.ToolCall(context.Background(), bashEvent("ls"), "c", wantCommand)
			switch policy {
			case PolicySkip:
				if err != nil || v.Input != nil {
					t.Errorf("%s/%s: the replacement must be discarded: %+v %v", in, policy, v, err)
				}
				if ds := d.Diagnostics(); len(ds) != 1 || !strings.Contains(ds[0].Message, "invalid result") {
					t.Errorf("%s/%s: diagnostics %+v", in, policy, ds)
				}
			case PolicyAbort:
				if !errors.Is(err, ErrInvalidResult) {
					t.Errorf("%s/%s: want the call refused, got %+v %v", in, policy, v, err)
				}
			}
		}
	}
}

func TestToolResultChain(t *testing.T) {
	yes := true
	mask := &toolFake{fake: fake{name: "mask", hooks: []string{abi.HookToolResult}},
		result: func(ev abi.ToolResultEvent) (abi.ToolResultPatch, error) {
			return abi.ToolResultPatch{Content: []abi.ContentPart{{Type: "text", Text: strings.ReplaceAll(ev.Content[0].Text, "secret", "******")}}}, nil
		}}
	flag := &toolFake{fake: fake{name: "flag", hooks: []string{abi.HookToolResult}},
		result: func(ev abi.ToolResultEvent) (abi.ToolResultPatch, error) {
			if strings.Contains(ev.Content[0].Text, "secret") {
				t.Error("a later extension must see the earlier patch")
			}
			return abi.ToolResultPatch{IsError: &yes}, nil
		}}
	garbage := &toolFake{fake: fake{name: "garbage", hooks: []string{abi.HookToolResult}},
		result: func(abi.ToolResultEvent) (abi.ToolResultPatch, error) {
			return abi.ToolResultPatch{Content: []abi.ContentPart{{Type: "video"}}}, nil
		}}
	d := New([]Handler{mask, flag, garbage})
	ev := abi.ToolResultEvent{ToolName: "read", Source: "builtin", Content: []abi.ContentPart{{Type: "text", Text: "the secret is 42"}}}
	out, err := d.ToolResult(context.Background(), ev, "c9")
	if err != nil {
		t.Fatal(err)
	}
	if out.Content[0].Text != "the ****** is 42" || !out.IsError || out.ToolCallID != "c9" {
		t.Fatalf("chained result: %+v", out)
	}
	if ds := d.Diagnostics(); len(ds) != 1 || ds[0].Extension != "garbage" {
		t.Fatalf("garbage content must be a skipped failure: %+v", ds)
	}

	// An abort redactor that fails withholds the result.
	garbage.policy = PolicyAbort
	if _, err := New([]Handler{garbage}).ToolResult(context.Background(), ev, "c"); err == nil {
		t.Fatal("a failing abort extension must withhold the result")
	}
}

func TestObserveHooksAndConcurrentDiagnostics(t *testing.T) {
	obs := &toolFake{fake: fake{name: "obs", policy: PolicyAbort, hooks: []string{abi.HookTurnEnd, abi.HookAgentEnd}}}
	d := New([]Handler{obs})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); d.TurnEnd(context.Background(), abi.TurnEndEvent{}) }()
	}
	wg.Wait()
	d.AgentEnd(context.Background(), abi.AgentEndEvent{})
	if obs.turns != 8 || obs.ended != 1 {
		t.Fatalf("turns %d ended %d", obs.turns, obs.ended)
	}
	if n := len(d.Diagnostics()); n != 8 {
		t.Fatalf("an observer's failure is a diagnostic, never an abort: %d", n)
	}
	if !d.HasToolHooks() || New(nil).HasToolHooks() {
		t.Fatal("HasToolHooks")
	}
}

func TestToolHooksMemoised(t *testing.T) {
	calls := 0
	pure := &memoFake{toolFake: toolFake{fake: fake{name: "guard", hooks: []string{abi.HookToolCall}},
		call: func(ev abi.ToolCallEvent, _ Fetcher) (abi.ToolCallResult, error) {
			calls++
			return abi.ToolCallResult{Block: strings.Contains(string(ev.Input), "rm")}, nil
		}}}
	store := &MemoryStore{}
	for run := 0; run < 2; run++ {
		d := New([]Handler{Memoize(pure, store)})
		for i, cmd := range []string{"ls", "rm -rf x"} {
			v, err := d.ToolCall(context.Background(), bashEvent(cmd), "id-"+string(rune('a'+run))+string(rune('0'+i)), nil)
			if err != nil || v.Block != (cmd != "ls") {
				t.Fatalf("run %d %s: %+v %v", run, cmd, v, err)
			}
		}
	}
	if calls != 2 {
		t.Fatalf("a pure guard that never reads the call id must be memoised across runs: %d calls", calls)
	}
}

type memoFake struct{ toolFake }

func (m *memoFake) MemoIdentity() (string, bool) { return "guard-v1", true }

// TestToolCallAbortPoliciesSeeFinalArguments (issue 19): a skip extension
// loaded after an abort policy replaces arguments the policy approved; the
// policy is asked again about what would run, and its block stands. A
// policy that approves the final arguments lets them through; arguments
// that never settle are refused.
func TestToolCallAbortPoliciesSeeFinalArguments(t *testing.T) {
	var seen []string
	policy := caller("policy", PolicyAbort, func(ev abi.ToolCallEvent, _ Fetcher) (abi.ToolCallResult, error) {
		seen = append(seen, string(ev.Input))
		if strings.Contains(string(ev.Input), "--force") {
			return abi.ToolCallResult{Block: true, Reason: "no force pushes"}, nil
		}
		return abi.ToolCallResult{}, nil
	})
	rewrite := func(to string) *toolFake {
		return caller("rewriter", PolicySkip, func(abi.ToolCallEvent, Fetcher) (abi.ToolCallResult, error) {
			in, _ := json.Marshal(map[string]string{"command": to})
			return abi.ToolCallResult{Input: in}, nil
		})
	}
	d := New([]Handler{policy, rewrite("git push --force origin main")})
	v, err := d.ToolCall(context.Background(), bashEvent("git push origin main"), "c", wantCommand)
	if err != nil || !v.Block || v.Extension != "policy" || v.Reason != "no force pushes" {
		t.Fatalf("verdict %+v, %v; the policy saw %q", v, err, seen)
	}

	seen = nil
	d = New([]Handler{policy, rewrite("git push origin feature")})
	v, err = d.ToolCall(context.Background(), bashEvent("git push origin main"), "c", wantCommand)
	if err != nil || v.Block || string(v.Input) != `{"command":"git push origin feature"}` || len(seen) != 2 {
		t.Fatalf("verdict %+v, %v; the policy saw %q", v, err, seen)
	}

	// A policy that rewrites whatever it is shown never settles.
	n := 0
	fickle := caller("fickle", PolicyAbort, func(abi.ToolCallEvent, Fetcher) (abi.ToolCallResult, error) {
		n++
		in, _ := json.Marshal(map[string]string{"command": fmt.Sprint("echo ", n)})
		return abi.ToolCallResult{Input: in}, nil
	})
	d = New([]Handler{fickle, caller("other", PolicyAbort, func(abi.ToolCallEvent, Fetcher) (abi.ToolCallResult, error) {
		n++
		in, _ := json.Marshal(map[string]string{"command": fmt.Sprint("echo ", n)})
		return abi.ToolCallResult{Input: in}, nil
	})})
	if v, err := d.ToolCall(context.Background(), bashEvent("ls"), "c", wantCommand); err != nil || !v.Block {
		t.Fatalf("unsettled arguments: %+v, %v", v, err)
	}
}
