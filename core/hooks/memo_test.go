package hooks

import (
	"context"
	"testing"

	"github.com/piwasm/pi/abi"
)

// pureFake counts its calls and reads one fetched value.
type pureFake struct {
	fake
	calls int
	pure  bool
}

func (p *pureFake) MemoIdentity() (string, bool) { return "sha:abc", p.pure }

func newPure(pure bool) *pureFake {
	p := &pureFake{pure: pure}
	p.fake = fake{name: "pure", hooks: []string{abi.HookBeforeAgentStart}}
	p.fake.start = func(ev abi.BeforeAgentStartEvent, fe Fetcher) (abi.BeforeAgentStartResult, error) {
		p.calls++
		v, _ := fe("context:/p/AGENTS.md")
		return abi.BeforeAgentStartResult{Message: ev.Input + ":" + string(v)}, nil
	}
	return p
}

func TestMemoizeReusesResultsWhileInputsMatch(t *testing.T) {
	store := &MemoryStore{}
	p := newPure(true)
	ctx := context.Background()
	agents := "v1"
	fetch := func(k string) ([]byte, bool) {
		if k == "context:/p/AGENTS.md" {
			return []byte(agents), true
		}
		return nil, false
	}
	// Each call is a new run: a fresh wrapper over the same store.
	call := func(input string) string {
		t.Helper()
		res, err := Memoize(p, store).BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: input}, fetch)
		if err != nil {
			t.Fatal(err)
		}
		return res.Message
	}
	if got := call("a"); got != "a:v1" || p.calls != 1 {
		t.Fatalf("%q after %d calls", got, p.calls)
	}
	if got := call("a"); got != "a:v1" || p.calls != 1 {
		t.Fatalf("same inputs ran the handler again (%d calls)", p.calls)
	}
	if got := call("b"); got != "b:v1" || p.calls != 2 {
		t.Fatalf("new event not run: %q, %d calls", got, p.calls)
	}
	agents = "v2"
	if got := call("a"); got != "a:v2" || p.calls != 3 {
		t.Fatalf("changed fetched value served from memo: %q, %d calls", got, p.calls)
	}
	// A fresh wrapper over the same store (a new process) hits too.
	p2 := newPure(true)
	if res, _ := Memoize(p2, store).BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "a"}, fetch); res.Message != "a:v2" || p2.calls != 0 {
		t.Fatalf("store not shared: %q, %d calls", res.Message, p2.calls)
	}
}

func TestMemoizeLeavesImpureHandlersAlone(t *testing.T) {
	p := newPure(false)
	if Memoize(p, &MemoryStore{}) != Handler(p) {
		t.Fatal("impure handler wrapped")
	}
	var plain Handler = &fake{name: "x"}
	if Memoize(plain, &MemoryStore{}) != plain {
		t.Fatal("non-memoizable handler wrapped")
	}
}

func TestMemoizeNeverStoresForcedPrompts(t *testing.T) {
	store := &MemoryStore{}
	p := newPure(true)
	p.fake.start = func(ev abi.BeforeAgentStartEvent, _ Fetcher) (abi.BeforeAgentStartResult, error) {
		p.calls++
		s := "forced"
		return abi.BeforeAgentStartResult{ForcePrompt: &s}, nil
	}
	h := Memoize(p, store)
	for i := 0; i < 2; i++ {
		if _, err := h.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "?"}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if p.calls != 2 {
		t.Fatalf("forced result served from the store (%d calls)", p.calls)
	}
	n := 0
	store.m.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Fatal("forced result stored")
	}
}

// A guest instance lives across calls, so a result recorded after one
// history of calls is not served after another.
func TestMemoizeKeysOnCallHistory(t *testing.T) {
	store := &MemoryStore{}
	p := newPure(true)
	ctx := context.Background()
	fetch := func(string) ([]byte, bool) { return []byte("v"), true }
	run := func(inputs ...string) []string {
		h := Memoize(p, store)
		var out []string
		for _, in := range inputs {
			res, err := h.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: in}, fetch)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, res.Message)
		}
		return out
	}
	run("a", "b")
	if p.calls != 2 {
		t.Fatalf("%d calls", p.calls)
	}
	run("a", "b") // same history: both served
	if p.calls != 2 {
		t.Fatalf("same history ran the guest (%d calls)", p.calls)
	}
	run("b") // "b" first is a different history: runs
	if p.calls != 3 {
		t.Fatalf("different history served from the store (%d calls)", p.calls)
	}
}

// After a failed call the wrapper neither serves nor stores.
func TestMemoizeStopsAfterAFailure(t *testing.T) {
	store := &MemoryStore{}
	p := newPure(true)
	fail := true
	p.fake.start = func(ev abi.BeforeAgentStartEvent, _ Fetcher) (abi.BeforeAgentStartResult, error) {
		p.calls++
		if fail {
			fail = false
			return abi.BeforeAgentStartResult{}, context.DeadlineExceeded
		}
		return abi.BeforeAgentStartResult{Message: ev.Input}, nil
	}
	h := Memoize(p, store)
	h.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "x"}, nil)
	h.BeforeAgentStart(context.Background(), abi.BeforeAgentStartEvent{Input: "x"}, nil)
	n := 0
	store.m.Range(func(any, any) bool { n++; return true })
	if n != 0 || p.calls != 2 {
		t.Fatalf("stored %d entries after a failure, %d calls", n, p.calls)
	}
}
