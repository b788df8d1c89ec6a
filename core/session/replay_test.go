package session

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
)

// scripted is an in-process extension whose hook results the test sets
// before each turn.
type scripted struct {
	message  string
	force    *string
	assemble []abi.Op
}

func (*scripted) Name() string { return "scripted" }
func (*scripted) Handles(h string) bool {
	return h == abi.HookBeforeAgentStart || h == abi.HookAssemble
}
func (*scripted) FailurePolicy() string       { return hooks.PolicyAbort }
func (*scripted) Commands() []abi.CommandInfo { return nil }
func (s *scripted) BeforeAgentStart(context.Context, abi.BeforeAgentStartEvent, hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	return abi.BeforeAgentStartResult{Message: s.message, ForcePrompt: s.force}, nil
}
func (s *scripted) Assemble(context.Context, abi.AssembleEvent, hooks.Fetcher) (abi.AssembleResult, error) {
	return abi.AssembleResult{Ops: s.assemble}, nil
}
func (*scripted) Input(context.Context, abi.InputEvent, hooks.Fetcher) (abi.InputResult, error) {
	return abi.InputResult{}, nil
}
func (*scripted) Command(context.Context, abi.CommandEvent, hooks.Fetcher) (abi.CommandResult, error) {
	return abi.CommandResult{}, nil
}

// checkReplay loads the session file and asserts that request k replays
// to the body that was sent as the k-th request.
func checkReplay(t *testing.T, m *mockModel, path string, route provider.Route, k int) {
	t.Helper()
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	rq, ok := RequestAt(loaded.Snapshot(), k)
	msgs := rq.Messages
	if !ok {
		t.Fatalf("request %d not recorded", k)
	}
	replayed, err := provider.DryRun(route, provider.Request{Model: route.ModelID, Messages: msgs, Tools: rq.Tools, Stream: true})
	if err != nil {
		t.Fatalf("request %d: replayed messages do not build: %v", k, err)
	}
	m.mu.Lock()
	sent := m.bodies[k]
	m.mu.Unlock()
	if !bytes.Equal(replayed, sent) {
		t.Fatalf("request %d replays to a different body\nreplayed: %s\nsent:     %s", k, replayed, sent)
	}
}

// TestReviewReplayAcrossRouteAndToolChanges drives one session file through
// capable and collapsed routes, AGENTS.md edits, tool changes, runtime
// context and injected messages, and checks after every turn that the file
// replays to exactly the request that was sent.
func TestReviewReplayAcrossRouteAndToolChanges(t *testing.T) {
	m := newMockModel(t)
	proj := t.TempDir()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	ext := &scripted{}
	d := hooks.New([]hooks.Handler{ext})
	type step struct {
		name   string
		route  func(string) provider.Route
		agents string
		tools  []string
		ctx    string
		inject string
	}
	steps := []step{
		{name: "first openai", route: openaiRoute, agents: "v1"},
		{name: "agents change, capable", route: openaiRoute, agents: "v2"},
		{name: "switch to anthropic", route: anthropicRoute, agents: "v3"},
		{name: "back to openai, unchanged", route: openaiRoute},
		{name: "openai, change", route: openaiRoute, agents: "v4"},
		{name: "tools change", route: openaiRoute, tools: []string{"read"}},
		{name: "runtime context", route: openaiRoute, ctx: "branch main"},
		{name: "injected message", route: openaiRoute, inject: "remember the deadline"},
		{name: "anthropic with context change", route: anthropicRoute, ctx: "branch dev", agents: "v5"},
	}
	tools := []string(nil)
	ctxText := ""
	for k, st := range steps {
		if st.agents != "" {
			writeFile(t, filepath.Join(proj, "AGENTS.md"), st.agents)
		}
		if st.tools != nil {
			tools = st.tools
		}
		if st.ctx != "" {
			ctxText = st.ctx
		}
		ext.message = st.inject
		route := st.route(m.srv.URL)
		r := newRunner(t, proj, path, route, d)
		r.Options.Tools = tools
		if ctxText != "" {
			r.Options.Contexts = []prompt.Context{{Name: "git", Order: 1, Text: ctxText}}
		}
		if _, err := r.Turn(context.Background(), Input{Text: "turn " + st.name}, false); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		r.Transcript.Close()
		checkReplay(t, m, path, route, k)
	}
}

// TestReviewForcedRequestReplay: a forced prompt replaces all system text of
// the outgoing request, and is (by design) not written to the session file.
// `pi session show --request N` promises "the exact messages" of request N;
// for a forced request the replay instead shows the structured prompt that
// was NOT sent, with nothing in the file saying the request was forced.
// Either the replay must match what was sent, or the request entry must at
// least record that a forced prompt replaced the system text.
func TestReviewForcedRequestReplay(t *testing.T) {
	m := newMockModel(t)
	proj := t.TempDir()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	force := "FORCED: answer yes or no."
	ext := &scripted{force: &force}
	route := openaiRoute(m.srv.URL)
	r := newRunner(t, proj, path, route, hooks.New([]hooks.Handler{ext}))
	if _, err := r.Turn(context.Background(), Input{Text: "is it done?"}, false); err != nil {
		t.Fatal(err)
	}
	r.Transcript.Close()
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	rq, _ := RequestAt(loaded.Snapshot(), 0)
	msgs := rq.Messages
	replayed, _ := provider.DryRun(route, provider.Request{Model: route.ModelID, Messages: msgs, Tools: rq.Tools, Stream: true})
	m.mu.Lock()
	sent := m.bodies[0]
	m.mu.Unlock()
	if bytes.Equal(replayed, sent) {
		return
	}
	var req Entry
	for _, e := range loaded.Snapshot() {
		if e.Type == TypeRequest {
			req = e
		}
	}
	if !strings.Contains(strings.ToLower(string(req.Raw)), "forced") {
		t.Fatalf("request 0 was sent with a forced system prompt, but the session file replays it as\n%s\nwhile the model got\n%s\nand the request entry %s does not say it was forced", replayed, sent, req.Raw)
	}
}

// TestReviewEmptyPromptThenPrompt: the first request renders an empty prompt
// (an extension removes every section); the next one renders a real prompt.
// Both requests must replay exactly; and the second request must carry the
// full prompt, not only "section X has changed" notes against an empty head
// (DESIGN §6: an empty prompt collapses; the head takes the full text).
func TestReviewEmptyPromptThenPrompt(t *testing.T) {
	m := newMockModel(t)
	proj := t.TempDir()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	ext := &scripted{}
	d := hooks.New([]hooks.Handler{ext})
	route := openaiRoute(m.srv.URL)
	var remove []abi.Op
	for _, n := range []string{"preamble", "tools", "rules", "docs", "cwd"} {
		remove = append(remove, abi.Op{Op: abi.OpRemoveSection, Name: n})
	}
	ext.assemble = remove
	r := newRunner(t, proj, path, route, d)
	t1, err := r.Turn(context.Background(), Input{Text: "one"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if t1.Prepared.Rendered.Text != "" {
		t.Fatalf("setup: want an empty prompt, got %q", t1.Prepared.Rendered.Text)
	}
	r.Transcript.Close()
	checkReplay(t, m, path, route, 0)

	ext.assemble = nil
	r = newRunner(t, proj, path, route, d)
	t2, err := r.Turn(context.Background(), Input{Text: "two"}, false)
	if err != nil {
		t.Fatal(err)
	}
	r.Transcript.Close()
	checkReplay(t, m, path, route, 1)
	var body struct {
		Messages []provider.Message `json:"messages"`
	}
	m.mu.Lock()
	json.Unmarshal(m.bodies[1], &body)
	m.mu.Unlock()
	var system []string
	for _, msg := range body.Messages {
		if msg.Role == "system" {
			system = append(system, msg.Content)
		}
	}
	if len(system) != 1 || system[0] != t2.Prepared.Rendered.Text {
		t.Fatalf("after an empty first prompt, the second request's system text is not the rendered prompt:\nsystem messages: %q", system)
	}
}

// TestReviewOpenAppendKeepsCompleteLastLine: a session file whose last
// entry is complete, valid JSON but lacks the final newline (written by
// another tool, or a write that stopped right before the newline) loads
// that entry without any problem reported, yet OpenAppend cuts it off the
// disk. The in-memory transcript still holds it, so later requests are built
// from an entry the file no longer has.
func TestReviewOpenAppendKeepsCompleteLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, `{"type":"session","version":1,"id":"x","cwd":"/","timestamp":"t"}
{"type":"message","message":{"role":"user","content":"first","timestamp":1}}
{"type":"message","message":{"role":"assistant","content":"kept?","timestamp":2}}`)
	tr, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Problems) != 0 || len(tr.Snapshot()) != 2 {
		t.Fatalf("setup: %d entries, problems %+v", len(tr.Snapshot()), tr.Problems)
	}
	msg := prompt.Message{Role: "user", Content: prompt.TextContent("second"), Timestamp: 3}
	if err := tr.Append(Entry{Type: TypeMessage, Message: &msg}); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	again, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if len(again.Snapshot()) != 3 || len(again.Problems) != 0 {
		t.Fatalf("a complete last entry without a newline was cut off by OpenAppend: file now has %d entries (want 3), problems %+v\n%s", len(again.Snapshot()), again.Problems, data)
	}
}

// TestReviewOpenAppendHeaderOnlyNoNewline: a file holding only the header,
// without a newline, loads fine; OpenAppend then truncates the file to zero
// bytes and the next entry becomes the first line, so the session can never
// be loaded again.
func TestReviewOpenAppendHeaderOnlyNoNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, `{"type":"session","version":1,"id":"x","cwd":"/","timestamp":"t"}`)
	tr, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	msg := prompt.Message{Role: "user", Content: prompt.TextContent("hi"), Timestamp: 1}
	if err := tr.Append(Entry{Type: TypeMessage, Message: &msg}); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if _, err := Load(path); err != nil {
		data, _ := os.ReadFile(path)
		t.Fatalf("session destroyed by OpenAppend: %v\n%s", err, data)
	}
}

// startOnly handles before_agent_start only and adds a complete section.
type startOnly struct{}

func (startOnly) Name() string                { return "whole" }
func (startOnly) Handles(h string) bool       { return h == abi.HookBeforeAgentStart }
func (startOnly) FailurePolicy() string       { return hooks.PolicySkip }
func (startOnly) Commands() []abi.CommandInfo { return nil }
func (startOnly) BeforeAgentStart(context.Context, abi.BeforeAgentStartEvent, hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	return abi.BeforeAgentStartResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "whole", Text: "ONLY THIS", Complete: true}}}, nil
}
func (startOnly) Assemble(context.Context, abi.AssembleEvent, hooks.Fetcher) (abi.AssembleResult, error) {
	return abi.AssembleResult{}, nil
}
func (startOnly) Input(context.Context, abi.InputEvent, hooks.Fetcher) (abi.InputResult, error) {
	return abi.InputResult{}, nil
}
func (startOnly) Command(context.Context, abi.CommandEvent, hooks.Fetcher) (abi.CommandResult, error) {
	return abi.CommandResult{}, nil
}

// TestReviewCompleteSectionWithoutAssembleHandlers: a complete section is
// the whole prompt (DESIGN §4). Prepare with no dispatcher runs
// prompt.Waterfall, which enforces that; with a dispatcher whose
// extensions handle no system-prompt/assemble hook, Dispatcher.Assemble
// returns the assembly as is and the rule is never applied, so the
// complete section is rendered after all the built-in sections.
func TestReviewCompleteSectionWithoutAssembleHandlers(t *testing.T) {
	opts := prompt.Options{Cwd: "/p"}
	withExt, err := Prepare(context.Background(), hooks.New([]hooks.Handler{startOnly{}}), opts, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if withExt.Rendered.Text != "ONLY THIS" {
		var names []string
		for _, s := range withExt.Rendered.Sections {
			names = append(names, s.Name)
		}
		t.Fatalf("complete section from before_agent_start is not the whole prompt when no extension handles assemble; sections %v", names)
	}
}
