package runtime

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
)

// fixture is a runtime over an in-memory transcript, a model that answers
// from a script and a "wait" tool that blocks until the test releases it
// (or the run is aborted), so a test can act while the agent works.
type fixture struct {
	rt      *Runtime
	release chan struct{}
	started chan struct{}

	mu       sync.Mutex
	replies  []provider.Response
	requests [][]provider.Message
	events   []agent.Event
}

func newFixture(t testing.TB, replies ...provider.Response) *fixture {
	t.Helper()
	f := &fixture{replies: replies, release: make(chan struct{}), started: make(chan struct{}, 16)}
	dir := t.TempDir()
	l, err := resources.Load(resources.Config{Cwd: dir, AgentDir: filepath.Join(dir, ".agent")})
	if err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry()
	wait := tool.Tool{Name: "wait", Description: "waits", Parameters: json.RawMessage(`{"type":"object","properties":{}}`), Snippet: "wait",
		Run: func(ctx context.Context, c tool.Call, u tool.Update) (tool.Result, error) {
			f.started <- struct{}{}
			select {
			case <-f.release:
				return tool.TextResult("waited"), nil
			case <-ctx.Done():
				return tool.Result{}, ctx.Err()
			}
		}}
	if err := reg.Add(wait); err != nil {
		t.Fatal(err)
	}
	opts := session.OptionsFrom(l, []string{"wait"}, nil)
	opts.Catalog = []prompt.Tool{{Name: "wait", Description: wait.Description, Parameters: wait.Parameters, Snippet: wait.Snippet}}
	tr, err := session.Create("", session.Header{ID: "t1", Cwd: dir})
	if err != nil {
		t.Fatal(err)
	}
	runner := &session.Runner{Transcript: tr, Loaded: l, Options: opts, Tools: reg,
		Route: provider.Route{Provider: "mock", ModelID: "m1", API: provider.APIOpenAICompletions, SystemInHistory: true},
		Model: f.model}
	f.rt = New(context.Background(), runner)
	f.rt.Subscribe(func(e agent.Event) {
		f.mu.Lock()
		f.events = append(f.events, e)
		f.mu.Unlock()
	})
	return f
}

func (f *fixture) model(ctx context.Context, req provider.Request, on func(provider.StreamEvent)) (provider.Response, error) {
	f.mu.Lock()
	f.requests = append(f.requests, req.Messages)
	resp := provider.Response{Text: "done", StopReason: "stop"}
	if len(f.replies) > 0 {
		resp, f.replies = f.replies[0], f.replies[1:]
	}
	f.mu.Unlock()
	if resp.Text != "" {
		on(provider.StreamEvent{Type: "text_start"})
		on(provider.StreamEvent{Type: "text_delta", Delta: resp.Text})
		on(provider.StreamEvent{Type: "text_end", Content: resp.Text})
	}
	return resp, nil
}

func callWait(id string) provider.Response {
	return provider.Response{StopReason: "toolUse", ToolCalls: []provider.ToolCall{{ID: id, Name: "wait", Arguments: json.RawMessage(`{}`)}}}
}

// userTexts are the user messages of the last request, in order.
func (f *fixture) lastUserTexts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.requests[len(f.requests)-1] {
		if m.Role == "user" {
			text := m.Content
			for _, p := range m.Parts {
				text += p.Text
			}
			out = append(out, text)
		}
	}
	return out
}

func (f *fixture) types() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, e := range f.events {
		out = append(out, e.Type)
	}
	return out
}

func TestPromptRunsInBackgroundAndSettles(t *testing.T) {
	f := newFixture(t)
	res, err := f.rt.Prompt(session.Input{Text: "hello"}, Refuse)
	if err != nil || res.Disposition != Started {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	turn, err := f.rt.Wait()
	if err != nil || turn.Text() != "done" {
		t.Fatalf("wait: %v %+v", err, turn)
	}
	types := f.types()
	if types[len(types)-1] != agent.AgentSettled {
		t.Errorf("last event %s, want agent_settled: %v", types[len(types)-1], types)
	}
	msgs := f.rt.Messages()
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[1].Role != "assistant" {
		t.Errorf("messages: %+v", msgs)
	}
	if st := f.rt.State(); st.Running || st.MessageCount != 2 || st.SessionID != "t1" {
		t.Errorf("state: %+v", st)
	}
}

// PromptThen answers before the run's first event: a front end's answer
// to the prompt (RPC's response) never follows the events it started.
func TestPromptThenAnswersBeforeTheRun(t *testing.T) {
	f := newFixture(t)
	var before []string
	res, err := f.rt.PromptThen(session.Input{Text: "hello"}, Refuse, func(r Result) {
		if r.Disposition != Started {
			t.Errorf("started with %+v", r)
		}
		// Long enough for a run already under way to have begun.
		time.Sleep(50 * time.Millisecond)
		before = f.types()
	})
	if err != nil || res.Disposition != Started {
		t.Fatalf("prompt: %+v %v", res, err)
	}
	f.rt.Wait()
	if len(before) != 0 {
		t.Errorf("events before the answer: %v", before)
	}
	if types := f.types(); len(types) == 0 || types[0] != agent.AgentStart {
		t.Errorf("events: %v", types)
	}
}

func TestBusyPromptNeedsABehavior(t *testing.T) {
	f := newFixture(t, callWait("c1"))
	if _, err := f.rt.Prompt(session.Input{Text: "go"}, Refuse); err != nil {
		t.Fatal(err)
	}
	<-f.started
	if _, err := f.rt.Prompt(session.Input{Text: "again"}, Refuse); err != ErrBusy {
		t.Errorf("busy prompt: %v, want ErrBusy", err)
	}
	if err := f.rt.Switch(nil); err != ErrBusy {
		t.Errorf("switch while busy: %v", err)
	}
	close(f.release)
	f.rt.Wait()
}

func TestSteerGoesInAfterTheToolBatch(t *testing.T) {
	f := newFixture(t, callWait("c1"), provider.Response{Text: "ok, steered", StopReason: "stop"})
	f.rt.Prompt(session.Input{Text: "start"}, Refuse)
	<-f.started
	res, err := f.rt.Prompt(session.Input{Text: "use the other file"}, Steer)
	if err != nil || res.Disposition != Queued {
		t.Fatalf("steer: %+v %v", res, err)
	}
	if st := f.rt.State(); len(st.Steering) != 1 || st.Steering[0] != "use the other file" {
		t.Errorf("queue: %+v", st.Steering)
	}
	close(f.release)
	if _, err := f.rt.Wait(); err != nil {
		t.Fatal(err)
	}
	got := f.lastUserTexts()
	if len(got) != 2 || got[1] != "use the other file" {
		t.Errorf("second request's user messages: %q", got)
	}
	var roles []string
	for _, m := range f.rt.Messages() {
		roles = append(roles, m.Role)
	}
	// The steering message comes after the tool result, before the next reply.
	if strings.Join(roles, ",") != "user,assistant,toolResult,user,assistant" {
		t.Errorf("roles: %v", roles)
	}
	if !contains(f.types(), agent.QueueUpdate) {
		t.Error("no queue_update event")
	}
}

func TestFollowUpWaitsForTheEnd(t *testing.T) {
	f := newFixture(t, callWait("c1"), provider.Response{Text: "first done", StopReason: "stop"}, provider.Response{Text: "second done", StopReason: "stop"})
	f.rt.Prompt(session.Input{Text: "start"}, Refuse)
	<-f.started
	if _, err := f.rt.FollowUp(session.Input{Text: "then this"}); err != nil {
		t.Fatal(err)
	}
	close(f.release)
	turn, err := f.rt.Wait()
	if err != nil || turn.Text() != "second done" {
		t.Fatalf("%v %+v", err, turn)
	}
	var texts []string
	for _, m := range f.rt.Messages() {
		if m.Role != "toolResult" {
			texts = append(texts, m.Role+":"+m.Content.Text())
		}
	}
	want := "user:start,assistant:,assistant:first done,user:then this,assistant:second done"
	if strings.Join(texts, ",") != want {
		t.Errorf("got %s\nwant %s", strings.Join(texts, ","), want)
	}
}

func TestAbortGivesEveryCallAResultAndReturnsTheQueue(t *testing.T) {
	f := newFixture(t, callWait("c1"))
	f.rt.Prompt(session.Input{Text: "start"}, Refuse)
	<-f.started
	f.rt.Steer(session.Input{Text: "typed while working"})
	steer, _ := f.rt.Abort()
	if len(steer) != 1 || steer[0] != "typed while working" {
		t.Errorf("abort returned %q", steer)
	}
	msgs := f.rt.Messages()
	last := msgs[len(msgs)-1]
	if last.Role != "toolResult" || last.IsError == nil || !*last.IsError {
		t.Errorf("last message: %+v", last)
	}
	f.mu.Lock()
	settled := f.events[len(f.events)-1]
	f.mu.Unlock()
	if settled.Type != agent.AgentSettled || !settled.Aborted {
		t.Errorf("last event %+v", settled)
	}
	// The session goes on after an abort.
	if _, err := f.rt.Run(session.Input{Text: "again"}); err != nil {
		t.Fatal(err)
	}
}

func TestSetRouteWaitsForTheNextRun(t *testing.T) {
	f := newFixture(t, callWait("c1"))
	f.rt.Prompt(session.Input{Text: "start"}, Refuse)
	<-f.started
	f.rt.SetRoute(provider.Route{Provider: "mock", ModelID: "m2", API: provider.APIOpenAICompletions})
	if f.rt.Runner().Route.ModelID != "m1" {
		t.Error("route changed mid-run")
	}
	if f.rt.Route().ModelID != "m2" {
		t.Error("Route does not report the pending switch")
	}
	close(f.release)
	f.rt.Wait()
	f.rt.Run(session.Input{Text: "next"})
	if f.rt.Runner().Route.ModelID != "m2" {
		t.Error("route not applied at the next run")
	}
}

func TestSwitchReplacesTheConversation(t *testing.T) {
	f := newFixture(t)
	f.rt.Run(session.Input{Text: "hello"})
	tr, _ := session.Create("", session.Header{ID: "t2"})
	if err := f.rt.Switch(tr); err != nil {
		t.Fatal(err)
	}
	if st := f.rt.State(); st.SessionID != "t2" || st.MessageCount != 0 {
		t.Errorf("after switch: %+v", st)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
