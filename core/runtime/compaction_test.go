package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/compact"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
)

// growing is a model whose replies report a chosen prompt size (usage),
// that answers summary requests with "SUM-n", and that can fail one
// request with a context-overflow error.
type growing struct {
	mu        sync.Mutex
	usage     int
	summaries []string // the summary requests' user text
	requests  [][]provider.Message
	overflow  bool // fail the next conversation request
}

func (g *growing) model(_ context.Context, req provider.Request, on func(provider.StreamEvent)) (provider.Response, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	text := ""
	if len(req.Messages) == 2 && len(req.Messages[1].Parts) == 1 {
		text = req.Messages[1].Parts[0].Text
	}
	if strings.HasPrefix(text, "<conversation>") || strings.HasPrefix(text, "# Conversation") {
		g.summaries = append(g.summaries, text)
		return provider.Response{Text: fmt.Sprintf("SUM-%d", len(g.summaries)), StopReason: "stop", Usage: provider.Usage{InputTokens: 50, OutputTokens: 5}}, nil
	}
	g.requests = append(g.requests, req.Messages)
	if g.overflow {
		g.overflow = false
		return provider.Response{}, errors.New(`400: {"message":"This model's maximum context length is 10000 tokens. However, your messages resulted in 12000 tokens."}`)
	}
	reply := fmt.Sprintf("answer %d with some words to keep", len(g.requests))
	on(provider.StreamEvent{Type: "text_start"})
	on(provider.StreamEvent{Type: "text_delta", Delta: reply})
	on(provider.StreamEvent{Type: "text_end", Content: reply})
	return provider.Response{Text: reply, StopReason: "stop", Usage: provider.Usage{InputTokens: g.usage, OutputTokens: 5}}, nil
}

func (g *growing) set(usage int) {
	g.mu.Lock()
	g.usage = usage
	g.mu.Unlock()
}

func newGrowing(t testing.TB) (*fixture, *growing) {
	f := newFixture(t)
	g := &growing{}
	f.rt.runner.Model = g.model
	f.rt.runner.Route.ContextWindow = 10000
	f.rt.SetCompaction(compact.Settings{Enabled: true, ReserveTokens: 2000, KeepRecentTokens: 20}, nil)
	return f, g
}

func (f *fixture) compactions() []agent.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []agent.Event
	for _, e := range f.events {
		if e.Type == agent.CompactionEnd {
			out = append(out, e)
		}
	}
	return out
}

func entriesOf(tr *session.Transcript, typ string) int {
	n := 0
	for _, e := range tr.Snapshot() {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// TestAutoCompactionAtTheThreshold: a session whose reported usage grows
// compacts once the context passes the window less the reserve (not
// before), goes on, and compacts again when it passes it again; the second
// summary request folds in the first summary; each request after a
// compaction carries the summary and the kept messages only; the session
// file keeps every message.
func TestAutoCompactionAtTheThreshold(t *testing.T) {
	f, g := newGrowing(t)
	for i, usage := range []int{3000, 6000, 7900, 9000, 3000, 8500, 3000} {
		g.set(usage)
		if _, err := f.rt.Run(session.Input{Text: fmt.Sprintf("prompt %d", i)}); err != nil {
			t.Fatal(err)
		}
		ends := f.compactions()
		want := map[int]int{0: 0, 1: 0, 2: 0, 3: 1, 4: 1, 5: 2, 6: 2}[i]
		if len(ends) != want {
			t.Fatalf("after prompt %d (usage %d): %d compactions, want %d", i, usage, len(ends), want)
		}
	}
	ends := f.compactions()
	for _, e := range ends {
		if e.Reason != ReasonThreshold || e.Compaction == nil || e.ErrorMessage != "" {
			t.Fatalf("compaction_end %+v", e)
		}
	}
	if !strings.Contains(g.summaries[1], "<previous-summary>\nSUM-1") {
		t.Fatalf("the second summary does not fold in the first:\n%s", g.summaries[1])
	}
	// The request after the second compaction: the prompt, the second
	// summary, kept messages, the new prompt; no early prompt.
	last := g.requests[len(g.requests)-1]
	var users []string
	for _, m := range last {
		if m.Role == "user" {
			users = append(users, m.Content+partsText(m))
		}
	}
	if !strings.HasPrefix(users[0], "The conversation history before this point was compacted") || !strings.Contains(users[0], "SUM-") {
		t.Fatalf("request after compaction: %q", users)
	}
	for _, u := range users {
		if strings.Contains(u, "prompt 0") {
			t.Fatalf("a summarised prompt is still sent: %q", users)
		}
	}
	if last[0].Role != provider.RoleSystem || last[0].Content != g.requests[0][0].Content {
		t.Fatal("the system prompt changed across compactions (the provider's cache prefix is lost)")
	}
	tr := f.rt.Transcript()
	if n := entriesOf(tr, session.TypeCompaction); n != 2 {
		t.Fatalf("%d compaction entries", n)
	}
	starts := 0
	for _, typ := range f.types() {
		if typ == agent.CompactionStart {
			starts++
		}
	}
	if starts != 2 {
		t.Fatalf("%d compaction_start events for 2 compactions (an automatic one with nothing to do is not reported)", starts)
	}
	users = nil
	for _, e := range tr.Snapshot() {
		if e.Type == session.TypeMessage && e.Message.Role == "user" {
			users = append(users, e.Message.Content.Text())
		}
	}
	if len(users) != 7 {
		t.Fatalf("the session file lost messages: %q", users)
	}
	if msgs := f.rt.Messages(); msgs[0].Role != "compactionSummary" {
		t.Fatalf("messages after compaction start with %s", msgs[0].Role)
	}
}

func partsText(m provider.Message) string {
	s := ""
	for _, p := range m.Parts {
		s += p.Text
	}
	return s
}

// TestManualCompactionPassesTheFocusOn: /compact focus on the tests runs
// with automatic compaction off, and the focus ends the summary request.
func TestManualCompactionPassesTheFocusOn(t *testing.T) {
	f, g := newGrowing(t)
	f.rt.SetAutoCompaction(false)
	if _, err := f.rt.Compact(""); !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("compacting an empty session: %v", err)
	}
	for i := 0; i < 3; i++ {
		g.set(9500)
		if _, err := f.rt.Run(session.Input{Text: fmt.Sprintf("prompt %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.compactions()); n != 1 { // the failed attempt above
		t.Fatalf("automatic compaction ran while off: %d", n)
	}
	res, err := f.rt.Compact("focus on the tests")
	if err != nil || res.Summary != "SUM-1" {
		t.Fatalf("compact: %+v %v", res, err)
	}
	if !strings.HasSuffix(g.summaries[0], "\n\nAdditional focus: focus on the tests") {
		t.Fatalf("focus not passed on: %q", g.summaries[0])
	}
	ends := f.compactions()
	if e := ends[len(ends)-1]; e.Reason != ReasonManual || e.Compaction == nil {
		t.Fatalf("compaction_end %+v", e)
	}
}

// TestOverflowCompactsAndRetries: a context-overflow error ends the run
// with agent_end willRetry, the failed attempt is omitted by a
// context_edit, the session compacts and the run goes on from the user's
// message; the run ends without an error. Once per prompt.
func TestOverflowCompactsAndRetries(t *testing.T) {
	f, g := newGrowing(t)
	for i := 0; i < 3; i++ {
		g.set(1000)
		if _, err := f.rt.Run(session.Input{Text: fmt.Sprintf("prompt %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	g.mu.Lock()
	g.overflow = true
	g.mu.Unlock()
	turn, err := f.rt.Run(session.Input{Text: "the big one"})
	if err != nil || !strings.HasPrefix(turn.Text(), "answer") {
		t.Fatalf("overflow not recovered: %v %+v", err, turn)
	}
	ends := f.compactions()
	if len(ends) != 1 || ends[0].Reason != ReasonOverflow || !ends[0].WillRetry {
		t.Fatalf("compactions %+v", ends)
	}
	retried := false
	f.mu.Lock()
	for _, e := range f.events {
		if e.Type == agent.AgentEnd && e.WillRetry {
			retried = true
		}
	}
	f.mu.Unlock()
	if !retried {
		t.Fatal("no agent_end with willRetry")
	}
	tr := f.rt.Transcript()
	if entriesOf(tr, session.TypeContextEdit) != 1 || entriesOf(tr, session.TypeCompaction) != 1 {
		t.Fatal("no context_edit or compaction entry")
	}
	last := g.requests[len(g.requests)-1]
	if m := last[len(last)-1]; m.Role != "user" || m.Content+partsText(m) != "the big one" {
		t.Fatalf("the retry does not end with the prompt: %+v", m)
	}
	// Automatic compaction off: the overflow error stands.
	f.rt.SetAutoCompaction(false)
	g.mu.Lock()
	g.overflow = true
	g.mu.Unlock()
	if _, err := f.rt.Run(session.Input{Text: "again"}); err == nil || !IsOverflow(err.Error()) {
		t.Fatalf("with compaction off: %v", err)
	}
}

// TestNothingToCompactIsQuiet: past the threshold with nothing old enough
// to summarise, an automatic compaction reports nothing (as the
// established harness), where /compact says why it did nothing.
func TestNothingToCompactIsQuiet(t *testing.T) {
	f, g := newGrowing(t)
	g.set(9500)
	if _, err := f.rt.Run(session.Input{Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	for _, typ := range f.types() {
		if typ == agent.CompactionStart || typ == agent.CompactionEnd {
			t.Fatalf("an automatic compaction with nothing to do was reported: %v", f.types())
		}
	}
	if _, err := f.rt.Compact(""); !errors.Is(err, ErrNothingToCompact) {
		t.Fatal(err)
	}
	if ends := f.compactions(); len(ends) != 1 || ends[0].ErrorMessage != "Compaction failed: Nothing to compact (session too small)" {
		t.Fatalf("/compact with nothing to do: %+v", ends)
	}
}

// TestAbortACompaction: abort stops a manual compaction's summary request;
// compaction_end says aborted and nothing is stored.
func TestAbortACompaction(t *testing.T) {
	f, g := newGrowing(t)
	for i := 0; i < 3; i++ {
		if _, err := f.rt.Run(session.Input{Text: fmt.Sprintf("prompt %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	asked := make(chan struct{})
	f.rt.runner.Model = func(ctx context.Context, req provider.Request, on func(provider.StreamEvent)) (provider.Response, error) {
		if len(req.Tools) > 0 {
			return g.model(ctx, req, on)
		}
		close(asked)
		<-ctx.Done()
		return provider.Response{}, ctx.Err()
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.rt.Compact("")
		done <- err
	}()
	<-asked
	f.rt.Abort()
	if err := <-done; err == nil {
		t.Fatal("an aborted compaction succeeded")
	}
	ends := f.compactions()
	if len(ends) != 1 || !ends[0].Aborted {
		t.Fatalf("compaction_end %+v", ends)
	}
	if n := entriesOf(f.rt.Transcript(), session.TypeCompaction); n != 0 {
		t.Fatalf("%d compaction entries after an abort", n)
	}
	if _, err := f.rt.Run(session.Input{Text: "after"}); err != nil {
		t.Fatalf("the session is not usable after an aborted compaction: %v", err)
	}
}

// TestModelSwitchResolvesCompactionAgain: a switch of model takes that
// model's compaction.modelOverrides entry and context window for the
// threshold; whether automatic compaction is on stays the session's. A
// switch asked for while the agent works applies with the next run.
func TestModelSwitchResolvesCompactionAgain(t *testing.T) {
	f, g := newGrowing(t)
	raw := json.RawMessage(`{"reserveTokens": 2000, "keepRecentTokens": 20, "modelOverrides": {"mock/m2": {"reserveTokens": 6000}}}`)
	f.rt.SetCompactionFor(func(provider, modelID string) compact.Settings {
		s, err := compact.Parse(raw, provider, modelID)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
	g.set(5000)
	for _, p := range []string{"one", "two", "three"} {
		if _, err := f.rt.Run(session.Input{Text: p}); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(f.compactions()); n != 0 {
		t.Fatalf("%d compactions at 5,000 of 10,000 tokens with a 2,000 reserve", n)
	}
	m2 := f.rt.Route()
	m2.ModelID, m2.ContextWindow = "m2", 10000
	f.rt.SetRoute(m2)
	if s := f.rt.CompactionSettings(); s.ReserveTokens != 6000 || !s.Enabled {
		t.Fatalf("settings after switching to m2: %+v", s)
	}
	// 5,000 tokens now pass m2's threshold (10,000 less 6,000).
	if _, err := f.rt.Run(session.Input{Text: "four"}); err != nil {
		t.Fatal(err)
	}
	if n := len(f.compactions()); n == 0 {
		t.Fatal("no compaction after the switch")
	}
	f.rt.SetAutoCompaction(false)
	m1 := m2
	m1.ModelID = "m1"
	f.rt.SetRoute(m1)
	if s := f.rt.CompactionSettings(); s.ReserveTokens != 2000 || s.Enabled {
		t.Fatalf("settings after switching back with auto-compaction off: %+v", s)
	}

	// While a run is in progress the switch (and its settings) waits.
	f.rt.SetAutoCompaction(true)
	f.mu.Lock()
	f.replies = []provider.Response{callWait("c1"), {Text: "done", StopReason: "stop"}}
	f.mu.Unlock()
	f.rt.runner.Model = f.model
	done := make(chan error, 1)
	go func() { _, err := f.rt.Run(session.Input{Text: "five"}); done <- err }()
	<-f.started
	f.rt.SetRoute(m2)
	if s := f.rt.CompactionSettings(); s.ReserveTokens != 2000 {
		t.Errorf("settings changed mid-run: %+v", s)
	}
	close(f.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := f.rt.Run(session.Input{Text: "six"}); err != nil {
		t.Fatal(err)
	}
	if s := f.rt.CompactionSettings(); s.ReserveTokens != 6000 {
		t.Errorf("settings after the pending switch applied: %+v", s)
	}
}
