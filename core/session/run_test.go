package session

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/core/tool/builtin"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/resources"
)

// mockModel is a loopback model server that records request bodies.
type mockModel struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newMockModel(t *testing.T) *mockModel {
	m := &mockModel{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.bodies = append(m.bodies, body)
		m.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		switch r.URL.Path {
		case "/v1/chat/completions":
			for _, part := range []string{"Hel", "lo!"} {
				fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", part)
			}
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		case "/v1/messages":
			fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n")
			fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello!\"}}\n\n")
			fmt.Fprint(w, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n")
			fmt.Fprint(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *mockModel) last(t *testing.T) map[string]any {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	var v map[string]any
	if err := json.Unmarshal(m.bodies[len(m.bodies)-1], &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func openaiRoute(base string) provider.Route {
	return provider.Route{Provider: "mock", ModelID: "m1", API: provider.APIOpenAICompletions, BaseURL: base + "/v1", SystemInHistory: true}
}

func anthropicRoute(base string) provider.Route {
	return provider.Route{Provider: "mock", ModelID: "m1", API: provider.APIAnthropicMessages, BaseURL: base}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runner builds a runner for a project dir, reloading resources each turn
// as a new pi process would.
func newRunner(t testing.TB, proj, sessionPath string, route provider.Route, d *hooks.Dispatcher) *Runner {
	t.Helper()
	l, err := resources.Load(resources.Config{Cwd: proj, AgentDir: filepath.Join(proj, ".agent")})
	if err != nil {
		t.Fatal(err)
	}
	var tr *Transcript
	if _, err := os.Stat(sessionPath); err == nil {
		tr, err = OpenAppend(sessionPath)
		if err != nil {
			t.Fatal(err)
		}
	} else {
		tr, err = Create(sessionPath, Header{ID: "test", Cwd: proj, Timestamp: "2026-01-01T00:00:00Z"})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { tr.Close() })
	clock := time.Unix(1700000000, 0)
	reg := tool.NewRegistry()
	for _, tl := range builtin.Tools(builtin.Env{Cwd: proj}) {
		if err := reg.Add(tl); err != nil {
			t.Fatal(err)
		}
	}
	opts := OptionsFrom(l, nil, nil)
	for _, n := range reg.Names() {
		tl, _ := reg.Get(n)
		opts.Catalog = append(opts.Catalog, prompt.Tool{Name: tl.Name, Snippet: tl.Snippet, Guidelines: tl.Guidelines, Description: tl.Description, Parameters: tl.Parameters})
	}
	return &Runner{Transcript: tr, Dispatcher: d, Loaded: l, Options: opts, Route: route, Tools: reg,
		Client: &provider.Client{}, Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
}

func systemEntries(tr *Transcript) []prompt.Message {
	var out []prompt.Message
	for _, e := range tr.Snapshot() {
		if e.Type == TypeMessage && e.Message.Role == "system" {
			out = append(out, *e.Message)
		}
	}
	return out
}

func TestTurnsOnCapableRoute(t *testing.T) {
	m := newMockModel(t)
	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, "AGENTS.md"), "Use tabs.")
	path := filepath.Join(t.TempDir(), "s.jsonl")

	r := newRunner(t, proj, path, openaiRoute(m.srv.URL), nil)
	var streamed strings.Builder
	r.Emit = func(e agent.Event) {
		if e.Type == agent.MessageUpdate && e.Delta.Type == "text_delta" {
			streamed.WriteString(e.Delta.Delta)
		}
	}
	turn, err := r.Turn(context.Background(), Input{Text: "hello"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if streamed.String() != "Hello!" || turn.Text() != "Hello!" {
		t.Fatalf("reply %q / %q", streamed.String(), turn.Text())
	}
	body := m.last(t)
	msgs := body["messages"].([]any)
	first := msgs[0].(map[string]any)
	if first["role"] != "system" || first["content"] != turn.Prepared.Rendered.Text {
		t.Fatalf("system text differs from the rendered prompt")
	}
	// One text part, not a string: the shape the established harness gives a prompt.
	if last, _ := json.Marshal(msgs[len(msgs)-1]); string(last) != `{"content":[{"text":"hello","type":"text"}],"role":"user"}` {
		t.Fatalf("last message %v", last)
	}
	// The file replays to exactly the request that was sent.
	loaded, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	rq, ok := RequestAt(loaded.Snapshot(), 0)
	replayed := rq.Messages
	if !ok {
		t.Fatal("no request recorded")
	}
	rb, _ := provider.DryRun(r.Route, provider.Request{Model: "m1", Messages: replayed, Tools: rq.Tools, Stream: true})
	m.mu.Lock()
	sent := m.bodies[0]
	m.mu.Unlock()
	if string(rb) != string(sent) {
		t.Fatalf("replayed request differs:\n%s\n%s", rb, sent)
	}

	// Second turn, nothing changed: no new system message, no projection.
	r = newRunner(t, proj, path, openaiRoute(m.srv.URL), nil)
	turn, err = r.Turn(context.Background(), Input{Text: "again"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Patch != nil || len(turn.Commits) != 0 {
		t.Fatalf("unchanged prompt wrote patch %+v commits %+v", turn.Patch, turn.Commits)
	}
	body2 := m.last(t)
	msgs2 := body2["messages"].([]any)
	if len(msgs2) != 4 || msgs2[0].(map[string]any)["content"] != first["content"] {
		t.Fatalf("second request: %d messages", len(msgs2))
	}

	// AGENTS.md changes: one patch with only project_context, sent in place
	// as an update note after the cached prefix.
	writeFile(t, filepath.Join(proj, "AGENTS.md"), "Use spaces.")
	r = newRunner(t, proj, path, openaiRoute(m.srv.URL), nil)
	turn, err = r.Turn(context.Background(), Input{Text: "third"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if turn.Patch == nil || len(turn.Patch.Sections) != 1 || turn.Patch.Sections[0].Name != "project_context" {
		t.Fatalf("patch %+v", turn.Patch)
	}
	msgs3 := m.last(t)["messages"].([]any)
	for i := range msgs2 {
		if fmt.Sprint(msgs3[i]) != fmt.Sprint(msgs2[i]) {
			t.Fatalf("cached prefix changed at %d", i)
		}
	}
	// After the prefix: the reply to "again", then the note, then "third".
	note := msgs3[len(msgs2)+1].(map[string]any)
	if note["role"] != "system" || !strings.Contains(note["content"].(string), "Use spaces.") || strings.Contains(note["content"].(string), "<tools>") {
		t.Fatalf("update note %v", note)
	}
	if len(systemEntries(r.Transcript)) != 2 {
		t.Fatalf("want 2 system messages, got %d", len(systemEntries(r.Transcript)))
	}
}

func TestCollapsedRoute(t *testing.T) {
	m := newMockModel(t)
	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, "AGENTS.md"), "v1")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	r := newRunner(t, proj, path, anthropicRoute(m.srv.URL), nil)
	if _, err := r.Turn(context.Background(), Input{Text: "one"}, false); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(proj, "AGENTS.md"), "v2")
	r = newRunner(t, proj, path, anthropicRoute(m.srv.URL), nil)
	turn, err := r.Turn(context.Background(), Input{Text: "two"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(turn.Commits) != 1 || turn.Commits[0].Op != prompt.OpReplace || turn.Commits[0].Seq != 0 {
		t.Fatalf("commits %+v", turn.Commits)
	}
	body := m.last(t)
	system, _ := body["system"].([]any)
	if len(system) != 1 || system[0].(map[string]any)["text"] != turn.Prepared.Rendered.Text {
		t.Fatalf("collapsed head must hold the full new prompt")
	}
	for _, msg := range body["messages"].([]any) {
		if msg.(map[string]any)["role"] == "system" {
			t.Fatal("system message in anthropic history")
		}
	}
}

// forcer is an in-process extension that forces a prompt.
type forcer struct{}

func (forcer) Name() string                { return "yes-no" }
func (forcer) Handles(h string) bool       { return h == abi.HookBeforeAgentStart }
func (forcer) FailurePolicy() string       { return hooks.PolicySkip }
func (forcer) Commands() []abi.CommandInfo { return nil }
func (forcer) BeforeAgentStart(_ context.Context, ev abi.BeforeAgentStartEvent, fetch hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	if in, _ := fetch(abi.KeyInput); strings.HasPrefix(string(in), "?") {
		s := "FORCED: answer yes or no."
		return abi.BeforeAgentStartResult{ForcePrompt: &s}, nil
	}
	return abi.BeforeAgentStartResult{}, nil
}
func (forcer) Assemble(context.Context, abi.AssembleEvent, hooks.Fetcher) (abi.AssembleResult, error) {
	return abi.AssembleResult{}, nil
}
func (forcer) Input(context.Context, abi.InputEvent, hooks.Fetcher) (abi.InputResult, error) {
	return abi.InputResult{}, nil
}
func (forcer) Command(context.Context, abi.CommandEvent, hooks.Fetcher) (abi.CommandResult, error) {
	return abi.CommandResult{}, nil
}

func TestForcedPromptReachesRequestOnly(t *testing.T) {
	m := newMockModel(t)
	proj := t.TempDir()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	r := newRunner(t, proj, path, openaiRoute(m.srv.URL), hooks.New([]hooks.Handler{forcer{}}))
	if _, err := r.Turn(context.Background(), Input{Text: "?is it done"}, false); err != nil {
		t.Fatal(err)
	}
	msgs := m.last(t)["messages"].([]any)
	systems := 0
	for _, msg := range msgs {
		mm := msg.(map[string]any)
		if mm["role"] == "system" {
			systems++
			if mm["content"] != "FORCED: answer yes or no." {
				t.Fatalf("system content %q", mm["content"])
			}
		}
	}
	if systems != 1 {
		t.Fatalf("%d system messages", systems)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "FORCED") {
		t.Fatal("forced prompt written to the session file")
	}
	// The force ends with the run: the next turn sends the structured prompt.
	if _, err := r.Turn(context.Background(), Input{Text: "plain"}, false); err != nil {
		t.Fatal(err)
	}
	first := m.last(t)["messages"].([]any)[0].(map[string]any)
	if strings.Contains(first["content"].(string), "FORCED") || !strings.HasPrefix(first["content"].(string), "You are pi") {
		t.Fatal("force outlived its run")
	}
}

func TestHTTPErrorLeavesSessionValid(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"bad key"}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	r := newRunner(t, t.TempDir(), path, openaiRoute(srv.URL), nil)
	if _, err := r.Turn(context.Background(), Input{Text: "hi"}, false); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("want a 401 error, got %v", err)
	}
	tr, err := Load(path)
	if err != nil || len(tr.Problems) != 0 {
		t.Fatalf("%v %+v", err, tr.Problems)
	}
	last := tr.Snapshot()[len(tr.Snapshot())-1]
	if last.Type != TypeMessage || last.Message.Role != "assistant" || last.Message.StopReason != "error" || !strings.Contains(last.Message.ErrorMessage, "401") {
		t.Fatalf("error not recorded as a failed assistant message: %+v", last.Message)
	}
}

func TestUnknownEntriesPassThrough(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, path, `{"type":"session","version":1,"id":"x","cwd":"/","timestamp":"t"}
{"type":"custom","customType":"todo","data":{"items":[1,2]}}
{"type":"message","message":{"role":"user","content":"hi","timestamp":1}}
`)
	tr, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Snapshot()) != 2 || tr.Snapshot()[0].Type != "custom" {
		t.Fatalf("%+v", tr.Snapshot())
	}
	out, _ := json.Marshal(tr.Snapshot()[0])
	if string(out) != `{"type":"custom","customType":"todo","data":{"items":[1,2]}}` {
		t.Fatalf("unknown entry changed: %s", out)
	}
	tr.Close()
}

// policyGuard is a fail-closed in-process extension adding a policy section.
type policyGuard struct{ forcer }

func (policyGuard) Name() string          { return "policy-guard" }
func (policyGuard) FailurePolicy() string { return hooks.PolicyAbort }
func (policyGuard) BeforeAgentStart(context.Context, abi.BeforeAgentStartEvent, hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	return abi.BeforeAgentStartResult{Ops: []abi.Op{{Op: abi.OpSetSection, Name: "policy", Text: "<policy>\nNo secrets.\n</policy>"}}}, nil
}

func TestForcedPromptKeepsFailClosedSections(t *testing.T) {
	m := newMockModel(t)
	r := newRunner(t, t.TempDir(), filepath.Join(t.TempDir(), "s.jsonl"), openaiRoute(m.srv.URL), hooks.New([]hooks.Handler{policyGuard{}, forcer{}}))
	if _, err := r.Turn(context.Background(), Input{Text: "?now"}, false); err != nil {
		t.Fatal(err)
	}
	sys := m.last(t)["messages"].([]any)[0].(map[string]any)["content"]
	if sys != "FORCED: answer yes or no.\n\n<policy>\nNo secrets.\n</policy>" {
		t.Fatalf("forced system text %q", sys)
	}
}

// contexter adds a runtime context while its flag is on.
type contexter struct {
	forcer
	on *bool
}

func (contexter) Name() string          { return "ctx" }
func (contexter) Handles(h string) bool { return h == abi.HookAssemble }
func (c contexter) Assemble(context.Context, abi.AssembleEvent, hooks.Fetcher) (abi.AssembleResult, error) {
	if *c.on {
		return abi.AssembleResult{Ops: []abi.Op{{Op: abi.OpSetContext, Name: "mode", Text: "Mode: review."}}}, nil
	}
	return abi.AssembleResult{}, nil
}

func TestRuntimeContextSnapshots(t *testing.T) {
	m := newMockModel(t)
	proj, path := t.TempDir(), filepath.Join(t.TempDir(), "s.jsonl")
	on := true
	d := hooks.New([]hooks.Handler{contexter{on: &on}})
	contexts := func() []string {
		tr, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range tr.Snapshot() {
			if e.Type == TypeContext {
				out = append(out, e.Text)
			}
		}
		return out
	}
	for i, st := range []struct {
		on   bool
		want int
	}{{true, 1}, {true, 1}, {false, 2}, {false, 2}, {true, 3}} {
		on = st.on
		if _, err := newRunner(t, proj, path, openaiRoute(m.srv.URL), d).Turn(context.Background(), Input{Text: "go"}, false); err != nil {
			t.Fatal(err)
		}
		if got := contexts(); len(got) != st.want {
			t.Fatalf("turn %d: %d context entries %q, want %d", i, len(got), got, st.want)
		}
	}
	got := contexts()
	if !strings.Contains(got[0], "Mode: review.") || got[1] != prompt.ContextClearedNote || got[2] != got[0] {
		t.Fatalf("snapshots %q", got)
	}
}
