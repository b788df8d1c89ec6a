package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/permission"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
)

// newTestRuntime is a runtime over an in-memory transcript holding n
// finished exchanges (user, assistant with a tool call, result,
// assistant), with a model that answers "ok".
func newTestRuntime(tb testing.TB, dir string, exchanges int) *runtime.Runtime {
	tb.Helper()
	l, err := resources.Load(resources.Config{Cwd: dir, AgentDir: filepath.Join(dir, ".agent")})
	if err != nil {
		tb.Fatal(err)
	}
	tr, err := session.Create("", session.Header{ID: "test", Cwd: dir})
	if err != nil {
		tb.Fatal(err)
	}
	no := false
	for i := 0; i < exchanges; i++ {
		msgs := []prompt.Message{
			{Role: "user", Content: prompt.TextContent(fmt.Sprintf("question %d: what does `f%d` do?", i, i))},
			{Role: "assistant", StopReason: "toolUse", Content: prompt.Content{Blocks: []prompt.Block{
				{Type: "text", Text: fmt.Sprintf("Let me **read** `f%d.go` first.", i)},
				{Type: "toolCall", ID: fmt.Sprint("c", i), Name: "read", Arguments: json.RawMessage(`{"path":"f.go"}`)},
			}}},
			{Role: prompt.RoleToolResult, ToolCallID: fmt.Sprint("c", i), ToolName: "read", IsError: &no, Content: prompt.TextContent("package f\n\nfunc F() {}\n")},
			{Role: "assistant", StopReason: "stop", Content: prompt.TextContent(fmt.Sprintf("## Answer %d\n\n- it does nothing\n- it is short\n\n```go\nfunc F() {}\n```", i))},
		}
		for _, m := range msgs {
			m := m
			if err := tr.Append(session.Entry{Type: session.TypeMessage, Message: &m}); err != nil {
				tb.Fatal(err)
			}
		}
	}
	runner := &session.Runner{Transcript: tr, Loaded: l, Options: session.OptionsFrom(l, []string{}, nil), Tools: tool.NewRegistry(),
		Route: provider.Route{Provider: "mock", ModelID: "m1", API: provider.APIOpenAICompletions, SystemInHistory: true, ContextWindow: 100000},
		Model: func(ctx context.Context, req provider.Request, on func(provider.StreamEvent)) (provider.Response, error) {
			on(provider.StreamEvent{Type: "text_delta", Delta: "ok"})
			return provider.Response{Text: "ok", StopReason: "stop"}, nil
		}}
	return runtime.New(context.Background(), runner)
}

func press(m *Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "ctrl+o":
			msg = tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
		case "ctrl+c":
			msg = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
		default:
			for _, r := range k {
				_, cmd = m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		_, cmd = m.Update(msg)
	}
	return cmd
}

func plainView(m *Model) string { return ansi.Strip(m.View().Content) }

func TestSlashCompletionListsEveryKind(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 0)
	rt.Runner().Loaded.Templates = []resources.Template{{Name: "fixit", Description: "fix the named thing"}}
	rt.Runner().Loaded.Skills = []resources.Skill{{Name: "tidy", Description: "tidy the code"}}
	m := New(Host{Runtime: rt, Cwd: dir})
	press(m, "/")
	v := plainView(m)
	for range len(slashCommands()) + 6 {
		press(m, "down")
		v += plainView(m)
	}
	for _, want := range []string{"/help", "/reload", "/fixit", "[template] fix the named thing", "/skill:tidy", "tidy the code"} {
		if !strings.Contains(v, want) {
			t.Errorf("menu lacks %q:\n%s", want, v)
		}
	}
	press(m, "sk", "tab")
	if got := m.editor.Value(); got != "/skill:tidy " {
		t.Errorf("tab completed to %q", got)
	}
}

func TestAtCompletesPaths(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "slug.go"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, ".hidden"), nil, 0o644)
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir})
	press(m, "look at @s", "tab")
	if got := m.editor.Value(); got != "look at @src/" {
		t.Fatalf("first tab: %q", got)
	}
	press(m, "tab")
	if got := m.editor.Value(); got != "look at @src/slug.go " {
		t.Errorf("second tab: %q", got)
	}
	press(m, "@")
	if strings.Contains(plainView(m), ".hidden") {
		t.Error("hidden files offered without a leading dot")
	}
}

// A deep working directory gives way in the footer before the notice
// does: it keeps its end, and the notice is shown whole.
func TestFooterKeepsTheNotice(t *testing.T) {
	dir := t.TempDir()
	deep := "/home/someone" + strings.Repeat("/a-rather-long-directory-name", 8) + "/project"
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: deep})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	press(m, "ctrl+c")
	f := ansi.Strip(m.footer())
	if !strings.Contains(f, "mock/m1 • press ctrl+c again to quit") || !strings.HasPrefix(f, "…") || !strings.Contains(f, "/project •") {
		t.Errorf("footer %q", f)
	}
	if n := len([]rune(f)); n > 100 {
		t.Errorf("footer of %d runes on a 100-column screen", n)
	}
	m.host.Cwd = "/w"
	if f := ansi.Strip(m.footer()); !strings.HasPrefix(f, "/w • mock/m1 • press ctrl+c") {
		t.Errorf("a short directory is shortened: %q", f)
	}
}

func TestHistoryAndCtrlC(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir})
	m.history = []string{"first", "second"}
	m.histPos = 2
	press(m, "up")
	if m.editor.Value() != "second" {
		t.Errorf("up: %q", m.editor.Value())
	}
	press(m, "up", "down")
	if m.editor.Value() != "second" {
		t.Errorf("up, down: %q", m.editor.Value())
	}
	press(m, "ctrl+c")
	if m.editor.Value() != "" {
		t.Error("ctrl+c did not clear the editor")
	}
	press(m, "ctrl+c")
	if !strings.Contains(plainView(m), "press ctrl+c again") {
		t.Error("first ctrl+c on an empty editor does not warn")
	}
	if cmd := press(m, "ctrl+c"); cmd == nil || !m.quitting {
		t.Error("second ctrl+c does not quit")
	}
}

func TestToolCallsDrawnAsTheyRunAndExpand(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, FullScreen: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	args := json.RawMessage(`{"command":"make test"}`)
	m.Update(eventsMsg{{Type: agent.AgentStart}, {Type: agent.ToolExecutionStart, ToolCallID: "b", ToolName: "bash", Args: args}})
	out := strings.Repeat("ok line\n", 12)
	m.Update(eventsMsg{{Type: agent.ToolExecutionUpdate, ToolCallID: "b", Result: &tool.Result{Content: []tool.Part{{Type: "text", Text: out + "last line"}}}}})
	v := plainView(m)
	if !strings.Contains(v, "● bash make test") || !strings.Contains(v, "last line") || !strings.Contains(v, "earlier lines") {
		t.Errorf("running bash is not a live tail:\n%s", v)
	}
	m.Update(eventsMsg{{Type: agent.ToolExecutionEnd, ToolCallID: "b", ToolName: "bash", DurationMs: 5, Result: &tool.Result{Content: []tool.Part{{Type: "text", Text: out + "last line"}}}}})
	v = plainView(m)
	if !strings.Contains(v, "✓ bash make test") || !strings.Contains(v, "last line") || !strings.Contains(v, "5 earlier lines, ctrl+o to expand") {
		t.Errorf("finished bash is not collapsed to its tail:\n%s", v)
	}
	press(m, "ctrl+o")
	if v := plainView(m); !strings.Contains(v, "last line") || strings.Contains(v, "earlier lines") || strings.Count(v, "ok line") != 12 {
		t.Errorf("ctrl+o does not expand:\n%s", v)
	}
}

func TestStreamingReplyThenCachedBlock(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir, FullScreen: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 30})
	start := prompt.Message{Role: "assistant"}
	m.Update(eventsMsg{{Type: agent.AgentStart}, {Type: agent.MessageStart, Message: &start},
		{Type: agent.MessageUpdate, Delta: &agent.Delta{Type: "text_delta", Delta: "Hello **wor"}}})
	if v := plainView(m); !strings.Contains(v, "Hello") {
		t.Errorf("streamed text not shown:\n%s", v)
	}
	final := prompt.Message{Role: "assistant", StopReason: "stop", Content: prompt.TextContent("Hello **world**")}
	m.Update(eventsMsg{{Type: agent.MessageEnd, Message: &final}, {Type: agent.AgentSettled}})
	if m.streaming != nil || len(m.blocks) != 1 {
		t.Fatalf("the finished reply is not one block (%d)", len(m.blocks))
	}
	first := m.blocks[0].view(80, false)
	m.blocks[0].draw = func(int, bool) string { t.Error("a cached block was drawn again"); return "" }
	if m.blocks[0].view(80, false) != first {
		t.Error("cache changed")
	}
}

func TestInlineModePrintsFinishedBlocksOnce(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 2), Cwd: dir})
	if cmd := m.flush(); cmd == nil || m.printed != len(m.blocks) {
		t.Fatal("history not printed")
	}
	if cmd := m.flush(); cmd != nil {
		t.Error("blocks printed twice")
	}
	if v := plainView(m); strings.Contains(v, "question 0") {
		t.Errorf("printed history drawn again in the live area:\n%s", v)
	}
}

func TestPermissionDialogAnswers(t *testing.T) {
	dir := t.TempDir()
	m := New(Host{Runtime: newTestRuntime(t, dir, 0), Cwd: dir})
	for key, want := range map[string]permission.Choice{"y": permission.AllowOnce, "a": permission.AllowAlways, "n": permission.DenyCall, "esc": permission.DenyCall} {
		a := askMsg{q: permission.Question{Tool: "bash", Command: "rm -rf build", Suggested: "bash(rm:*)"}, reply: make(chan permission.Answer, 1)}
		m.Update(a)
		if v := plainView(m); !strings.Contains(v, "rm -rf build") || !strings.Contains(v, "Allow this call?") || !strings.Contains(v, "bash(rm:*)") {
			t.Fatalf("dialog:\n%s", v)
		}
		press(m, key)
		if got := (<-a.reply).Choice; got != want {
			t.Errorf("%s answered %v, want %v", key, got, want)
		}
		if m.dialog != nil {
			t.Error("dialog still open")
		}
	}
}

// TestUntrustedTextIsEscaped: a command the model wants to run, a
// template's description and a provider's error cannot drive the terminal.
func TestUntrustedTextIsEscaped(t *testing.T) {
	dir := t.TempDir()
	rt := newTestRuntime(t, dir, 0)
	rt.Runner().Loaded.Templates = []resources.Template{{Name: "evil", Description: "x\x1b]0;pwned\x07y"}}
	m := New(Host{Runtime: rt, Cwd: dir})
	m.Update(askMsg{q: permission.Question{Tool: "bash", Command: "rm\x1b[2J -rf"}, reply: make(chan permission.Answer, 1)})
	if v := m.View().Content; strings.Contains(v, "\x1b[2J") {
		t.Errorf("dialog passes an escape sequence through: %q", v)
	}
	press(m, "esc")
	press(m, "/ev")
	if v := m.View().Content; strings.Contains(v, "\x1b]0;") || strings.Contains(v, "\x07") {
		t.Errorf("menu passes an OSC through: %q", v)
	}
	m.Update(eventsMsg{{Type: agent.AutoRetryStart, ErrorMessage: "bad\x1b[31m", Attempt: 1, MaxAttempts: 3}})
	if v := m.View().Content; strings.Contains(v, "bad\x1b[31m") {
		t.Errorf("footer passes an escape through: %q", v)
	}
}
