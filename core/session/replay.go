package session

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"strings"
	"sync"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
)

// Replay is a model that plays back the assistant messages recorded in a
// session file, in order, so a recorded session re-runs against today's
// tools, extensions and policies with no network and no key. Tool results
// produced now are compared with the recorded ones: a difference is kept
// in Mismatches, never hidden.
type Replay struct {
	Path string
	// Cwd is the directory the replay runs in; the recording's own
	// directory in its results reads as this one when comparing.
	Cwd string
	// recordedCwd is the working directory the recording was made in.
	recordedCwd string

	mu         sync.Mutex
	replies    []prompt.Message
	recorded   map[string]prompt.Message // tool results by call id
	next       int
	checked    map[string]bool
	mismatches []Mismatch
}

// Mismatch is a replayed tool call whose result differs from the recording.
type Mismatch struct {
	CallID, Tool   string
	Recorded, Now  string
	RecordedFailed bool
	NowFailed      bool
}

func (m Mismatch) String() string {
	return fmt.Sprintf("tool call %s (%s) gave a different result than recorded:\n  recorded%s: %s\n  now%s: %s",
		m.CallID, m.Tool, failed(m.RecordedFailed), oneLine(m.Recorded), failed(m.NowFailed), oneLine(m.Now))
}

func failed(b bool) string {
	if b {
		return " (error)"
	}
	return ""
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}

// LoadReplay reads the recording at path: the assistant messages of its
// active branch that said something (failed requests are skipped).
func LoadReplay(path string) (*Replay, error) {
	tr, err := Load(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	r := &Replay{Path: path, recordedCwd: tr.Header.Cwd, recorded: map[string]prompt.Message{}, checked: map[string]bool{}}
	branch, err := tr.FullBranch()
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	for _, e := range branch {
		m := e.Message
		if e.Type != TypeMessage || m == nil {
			continue
		}
		switch {
		case m.Role == "assistant" && m.StopReason != "error" && m.StopReason != "aborted":
			r.replies = append(r.replies, *m)
		case m.Role == prompt.RoleToolResult:
			r.recorded[m.ToolCallID] = *m
		}
	}
	if len(r.replies) == 0 {
		return nil, fmt.Errorf("replay: %s has no assistant messages to play back", path)
	}
	return r, nil
}

// Mismatches returns the differences found so far.
func (r *Replay) Mismatches() []Mismatch {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Mismatch(nil), r.mismatches...)
}

// Remaining is how many recorded replies were not played.
func (r *Replay) Remaining() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.replies) - r.next
}

// Stream answers req with the next recorded reply, as a provider would
// stream it.
func (r *Replay) Stream(ctx context.Context, req provider.Request, onEvent func(provider.StreamEvent)) (provider.Response, error) {
	r.mu.Lock()
	r.compare(req)
	if r.next >= len(r.replies) {
		n := len(r.replies)
		r.mu.Unlock()
		return provider.Response{StopReason: "error"}, fmt.Errorf("replay: %s has no more replies (all %d were played)", r.Path, n)
	}
	m := r.replies[r.next]
	r.next++
	r.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return provider.Response{StopReason: "aborted"}, err
	}
	emit := func(ev provider.StreamEvent) {
		if onEvent != nil {
			onEvent(ev)
		}
	}
	var resp provider.Response
	for i, b := range m.Content.Blocks {
		switch b.Type {
		case "text":
			emit(provider.StreamEvent{Type: "text_start", ContentIndex: i})
			for _, piece := range chunks(b.Text) {
				emit(provider.StreamEvent{Type: "text_delta", ContentIndex: i, Delta: piece})
			}
			emit(provider.StreamEvent{Type: "text_end", ContentIndex: i, Content: b.Text})
			resp.Text += b.Text
		case "thinking":
			emit(provider.StreamEvent{Type: "thinking_start", ContentIndex: i})
			emit(provider.StreamEvent{Type: "thinking_delta", ContentIndex: i, Delta: b.Thinking})
			emit(provider.StreamEvent{Type: "thinking_end", ContentIndex: i, Content: b.Thinking})
			resp.Thinking += b.Thinking
		case "toolCall":
			args := b.Arguments
			if len(args) == 0 {
				args = json.RawMessage(`{}`)
			}
			call := provider.ToolCall{ID: b.ID, Name: b.Name, Arguments: args, ArgumentsError: b.ArgumentsError}
			emit(provider.StreamEvent{Type: "toolcall_start", ContentIndex: i, ID: b.ID, ToolName: b.Name})
			emit(provider.StreamEvent{Type: "toolcall_delta", ContentIndex: i, Delta: string(args)})
			emit(provider.StreamEvent{Type: "toolcall_end", ContentIndex: i, ToolCall: &call})
			resp.ToolCalls = append(resp.ToolCalls, call)
		}
	}
	if m.Content.Blocks == nil && m.Content.Str != "" {
		emit(provider.StreamEvent{Type: "text_start"})
		emit(provider.StreamEvent{Type: "text_delta", Delta: m.Content.Str})
		emit(provider.StreamEvent{Type: "text_end", Content: m.Content.Str})
		resp.Text = m.Content.Str
	}
	resp.StopReason = m.StopReason
	if resp.StopReason == "" {
		resp.StopReason = "stop"
		if len(resp.ToolCalls) > 0 {
			resp.StopReason = "toolUse"
		}
	}
	if m.Usage != nil {
		resp.Usage = provider.Usage{InputTokens: m.Usage.Input, OutputTokens: m.Usage.Output, CacheReadTokens: m.Usage.CacheRead, CacheWriteTokens: m.Usage.CacheWrite}
	}
	return resp, nil
}

// compare checks the tool results the request carries against the
// recording (each once).
func (r *Replay) compare(req provider.Request) {
	for _, m := range req.Messages {
		if m.Role != provider.RoleTool || r.checked[m.ToolCallID] {
			continue
		}
		r.checked[m.ToolCallID] = true
		rec, ok := r.recorded[m.ToolCallID]
		if !ok {
			continue
		}
		var now []string
		for _, p := range m.Parts {
			if p.Type == "text" {
				now = append(now, p.Text)
			}
		}
		if m.Parts == nil && m.Content != "" {
			now = append(now, m.Content)
		}
		nowText := strings.Join(now, "\n")
		if r.normalize(nowText, r.Cwd) != r.normalize(rec.Content.Text(), r.recordedCwd) || m.IsError != rec.Failed() {
			r.mismatches = append(r.mismatches, Mismatch{CallID: m.ToolCallID, Tool: m.ToolName,
				Recorded: rec.Content.Text(), Now: nowText, RecordedFailed: rec.Failed(), NowFailed: m.IsError})
		}
	}
}

// durations matches the timings commands print ("0.013s", "(12ms)"),
// which differ on every run and are not a difference in behaviour.
var durations = lazyre.New(`\b\d+(\.\d+)?(ns|µs|us|ms|s)\b`)

// normalize makes a result comparable across runs: the working directory
// and timings are replaced by placeholders.
func (r *Replay) normalize(s, cwd string) string {
	if cwd != "" {
		s = strings.ReplaceAll(s, cwd, "<cwd>")
	}
	return durations().ReplaceAllString(s, "<time>")
}

// chunks splits text into word-sized pieces so a replay streams like a
// model does.
func chunks(s string) []string {
	var out []string
	for len(s) > 0 {
		i := strings.IndexAny(s[1:], " \n")
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
