package rpc

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/piwasm/pi/core/export"
	"io"
	"sync"

	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/permission"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
)

// rpcCommand is one line of stdin in RPC mode: the established harness's
// command shapes (only the fields pi reads).
type rpcCommand struct {
	ID                 *string        `json:"id,omitempty"`
	Type               string         `json:"type"`
	Message            string         `json:"message"`
	Images             []prompt.Block `json:"images"`
	StreamingBehavior  string         `json:"streamingBehavior"`
	Provider           string         `json:"provider"`
	ModelID            string         `json:"modelId"`
	SessionPath        string         `json:"sessionPath"`
	Command            string         `json:"command"`
	ExcludeFromContext bool           `json:"excludeFromContext"`
	Mode               string         `json:"mode"`
	// compact and set_auto_compaction
	Enabled       *bool  `json:"enabled"`
	ParentSession string `json:"parentSession"`

	// session commands
	EntryID             string  `json:"entryId"`
	Since               *string `json:"since"`
	Name                string  `json:"name"`
	TargetID            string  `json:"targetId"`
	Summarize           bool    `json:"summarize"`
	CustomInstructions  string  `json:"customInstructions"`
	ReplaceInstructions bool    `json:"replaceInstructions"`
	Label               string  `json:"label"`

	// set_thinking_level, export_html
	Level      string `json:"level"`
	OutputPath string `json:"outputPath"`

	// extension_ui_response
	Value     *string `json:"value"`
	Confirmed *bool   `json:"confirmed"`
	Cancelled bool    `json:"cancelled"`
}

// rpcResponse answers one command, once.
type rpcResponse struct {
	ID      *string `json:"id,omitempty"`
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Success bool    `json:"success"`
	Data    any     `json:"data,omitempty"`
	Error   string  `json:"error,omitempty"`
}

// Host is what the server needs from the program around it: the session
// and the operations that reach beyond it (files, models.json).
type Host struct {
	Runtime *runtime.Runtime
	// NewSession starts a fresh session (naming parent as its parent
	// session when set) and switches the runtime to it.
	NewSession func(parent string) error
	// OpenSession switches the runtime to the session file at path.
	OpenSession func(path string) error
	// SetModel resolves provider/modelId and switches the runtime to it,
	// returning the route now in use.
	SetModel func(provider, modelID string) (provider.Route, error)
	// Models lists the models of models.json.
	Models func() ([]provider.ModelInfo, error)
	// Summarizer writes branch summaries for navigate_tree (nil: none).
	Summarizer runtime.Summarizer
	// ScopedModels are the models cycle_model goes through (--models,
	// enabledModels); empty means every configured model.
	ScopedModels func() ([]string, error)
	// Cwd is where export_html writes when given no absolute path.
	Cwd string
	// ExportPalette is the theme's colours for export_html's page (nil,
	// or a nil answer: the page's own colours).
	ExportPalette func() *export.Palette
	// MCP answers pi's mcp_list (name "") and mcp_reconnect (the server's
	// name) with the servers as pi mcp list --json shows them; nil when
	// the session has no MCP servers.
	MCP func(reconnect string) (any, error)
}

// Server runs RPC mode: commands on stdin, responses and events on
// stdout, questions as extension_ui_request records. It is also the
// session's permission.Asker, so it exists before the session does.
type Server struct {
	h   Host
	ctx context.Context
	out *lineWriter
	// work counts commands still running in their own goroutine (abort,
	// bash), so shutdown waits for them.
	work sync.WaitGroup

	mu      sync.Mutex
	pending map[string]chan rpcCommand
	// bashes cancel the bash commands still running (abort_bash).
	bashes   map[int]context.CancelFunc
	nextBash int
}

// NewServer makes a server that writes its records to out.
func NewServer(out io.Writer) *Server {
	return &Server{out: &lineWriter{w: out}, pending: map[string]chan rpcCommand{}}
}

// Serve reads commands from in until EOF or ctx ends, then shuts down in
// order: the running prompt finishes (aborted if ctx ended), then commands
// still at work. Read errors other than EOF are reported on errs.
func (s *Server) Serve(ctx context.Context, h Host, in io.Reader, errs io.Writer) error {
	s.h, s.ctx = h, ctx
	h.Runtime.Subscribe(func(e agent.Event) { s.out.emit(e) })

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		for {
			// Records end at LF only: U+2028 inside a string is not a
			// line break.
			line, err := br.ReadBytes('\n')
			if len(line) > 0 && !s.answerNow(line) {
				lines <- line
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	for {
		select {
		case line := <-lines:
			s.handle(ctx, line)
			continue
		case err := <-readErr:
			if err != io.EOF {
				fmt.Fprintf(errs, "pi: rpc: read commands: %v\n", err)
			}
		case <-ctx.Done():
		}
		break
	}
	if ctx.Err() != nil {
		h.Runtime.Abort()
	}
	h.Runtime.Wait()
	s.work.Wait()
	s.cancelQuestions()
	return nil
}

func (s *Server) respond(c rpcCommand, data any, err error) {
	resp := rpcResponse{ID: c.ID, Type: "response", Command: c.Type, Success: err == nil, Data: data}
	if err != nil {
		resp.Error = err.Error()
		resp.Data = nil
	}
	s.out.emit(resp)
}

func (s *Server) handle(ctx context.Context, line []byte) {
	line = trimEOL(line)
	if len(line) == 0 {
		return
	}
	var c rpcCommand
	if err := json.Unmarshal(line, &c); err != nil {
		s.out.emit(rpcResponse{Type: "response", Command: "parse", Success: false, Error: "Failed to parse command: " + err.Error()})
		return
	}
	rt := s.h.Runtime
	switch c.Type {
	case "extension_ui_response":
		s.answer(c)
	case "prompt":
		var b runtime.Behavior
		switch c.StreamingBehavior {
		case "":
		case "steer":
			b = runtime.Steer
		case "followUp":
			b = runtime.FollowUp
		default:
			s.respond(c, nil, fmt.Errorf("streamingBehavior %q: want \"steer\" or \"followUp\"", c.StreamingBehavior))
			return
		}
		answered := false
		res, err := rt.PromptThen(session.Input{Text: c.Message, Images: c.Images}, b, func(res runtime.Result) {
			s.respond(c, disposition(res, nil), nil)
			answered = true
		})
		if answered {
			return
		}
		if errors.Is(err, runtime.ErrBusy) {
			err = errors.New("the agent is already working: send the prompt with streamingBehavior \"steer\" or \"followUp\", or use steer or follow_up")
		}
		if err == nil && res.Disposition == runtime.Handled && res.Input.Show != "" {
			s.notify(res.Input.Show)
		}
		s.respond(c, disposition(res, err), err)
	case "steer", "follow_up":
		if f, err := rt.Funnel(c.Message); err == nil && f.Kind == session.KindCommand {
			s.respond(c, nil, errors.New("extension commands cannot be queued; send them with prompt"))
			return
		}
		b := runtime.Steer
		if c.Type == "follow_up" {
			b = runtime.FollowUp
		}
		res, err := rt.Prompt(session.Input{Text: c.Message, Images: c.Images}, b)
		if err == nil && res.Disposition == runtime.Started {
			res.Disposition = runtime.Queued
		}
		s.respond(c, disposition(res, err), err)
	case "abort":
		s.work.Add(1)
		go func() {
			defer s.work.Done()
			rt.Abort()
			s.respond(c, nil, nil)
		}()
	case "set_auto_retry", "abort_retry":
		s.retry(c)
	case "abort_bash":
		s.abortBash()
		s.respond(c, nil, nil)
	case "clear_queue":
		st, fu := rt.ClearQueue()
		s.respond(c, map[string]any{"steering": nonNilStrings(st), "followUp": nonNilStrings(fu)}, nil)
	case "get_state":
		s.respond(c, s.state(), nil)
	case "compact", "set_auto_compaction":
		s.compaction(c)
	case "get_messages":
		msgs := rt.AgentMessages()
		if msgs == nil {
			msgs = []prompt.Message{}
		}
		s.respond(c, map[string]any{"messages": msgs}, nil)
	case "get_last_assistant_text":
		var text *string
		msgs := rt.Messages()
		for i := len(msgs) - 1; i >= 0 && text == nil; i-- {
			if m := msgs[i]; m.Role == "assistant" && m.StopReason != "error" && m.StopReason != "aborted" {
				if t := m.Content.Text(); t != "" {
					text = &t
				}
			}
		}
		s.respond(c, map[string]any{"text": text}, nil)
	case "set_model":
		var route provider.Route
		err := errors.New("set_model needs modelId")
		if c.ModelID != "" {
			route, err = s.h.SetModel(c.Provider, c.ModelID)
		}
		s.respond(c, modelObject(route), err)
	case "get_available_models":
		models, err := s.h.Models()
		list := []map[string]any{}
		for _, m := range models {
			if m.Listed {
				list = append(list, modelJSON(m))
			}
		}
		s.respond(c, map[string]any{"models": list}, err)
	case "set_steering_mode":
		s.respond(c, nil, rt.SetQueueModes(c.Mode, ""))
	case "set_follow_up_mode":
		s.respond(c, nil, rt.SetQueueModes("", c.Mode))
	case "new_session":
		s.respondCancellable(c, nil, s.h.NewSession(c.ParentSession))
	case "switch_session":
		err := errors.New("switch_session needs sessionPath")
		if c.SessionPath != "" {
			err = s.h.OpenSession(c.SessionPath)
		}
		s.respondCancellable(c, nil, err)
	case "bash":
		s.work.Add(1)
		bctx, done := s.startBash(ctx)
		go func() {
			defer s.work.Done()
			defer done()
			res, err := rt.Bash(bctx, c.Command, !c.ExcludeFromContext, func(out string) {
				ev := map[string]any{"type": "bash_execution_update", "output": out}
				if c.ID != nil {
					ev["id"] = *c.ID
				}
				s.out.emit(ev)
			})
			s.respond(c, res, err)
		}()
	case "mcp_list", "mcp_reconnect":
		// pi's own commands (the established harness has none for MCP):
		// they may wait for a server's timeout, so they run on their own.
		if s.h.MCP == nil {
			s.respond(c, map[string]any{"servers": []any{}}, nil)
			return
		}
		if c.Type == "mcp_reconnect" && c.Name == "" {
			s.respond(c, nil, fmt.Errorf("mcp_reconnect needs the server's name"))
			return
		}
		s.work.Add(1)
		go func() {
			defer s.work.Done()
			name := ""
			if c.Type == "mcp_reconnect" {
				name = c.Name
			}
			data, err := s.h.MCP(name)
			s.respond(c, data, err)
		}()
	case "get_commands":
		cmds := rt.Commands()
		if cmds == nil {
			cmds = []runtime.Command{}
		}
		s.respond(c, map[string]any{"commands": cmds}, nil)
	default:
		if !s.handleSession(c) && !s.controls(c) {
			s.respond(c, nil, fmt.Errorf("unknown command: %s", c.Type))
		}
	}
}

func disposition(res runtime.Result, err error) any {
	if err != nil {
		return nil
	}
	return map[string]any{"disposition": res.Disposition}
}

func trimEOL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func (s *Server) state() map[string]any {
	st := s.h.Runtime.State()
	data := map[string]any{
		"thinkingLevel":         "off",
		"isStreaming":           st.Running,
		"isCompacting":          st.Compacting,
		"steeringMode":          st.SteeringMode,
		"followUpMode":          st.FollowUpMode,
		"sessionId":             st.SessionID,
		"autoCompactionEnabled": s.h.Runtime.CompactionSettings().Enabled,
		"messageCount":          st.MessageCount,
		"pendingMessageCount":   len(st.Steering) + len(st.FollowUp),
	}
	if st.Route.ModelID != "" {
		data["model"] = modelObject(st.Route)
	}
	if st.Route.Thinking != "" {
		data["thinkingLevel"] = st.Route.Thinking
	}
	if st.SessionFile != "" {
		data["sessionFile"] = st.SessionFile
	}
	if name := s.h.Runtime.Transcript().Name(); name != "" {
		data["sessionName"] = name
	}
	return data
}

// modelObject is the model as RPC clients see it: the established
// harness's Model object (its input list, and its prices in dollars per
// million tokens, zero when models.json gives none).
func modelObject(r provider.Route) map[string]any {
	return modelJSON(provider.ModelInfo{Provider: r.Provider, ID: r.ModelID, Name: r.Name, API: r.API, BaseURL: r.BaseURL,
		ContextWindow: r.ContextWindow, MaxTokens: r.MaxTokens, Reasoning: r.Reasoning, Images: !r.NoImages, Cost: r.Cost})
}

func modelJSON(m provider.ModelInfo) map[string]any {
	name := m.Name
	if name == "" {
		name = m.ID
	}
	input := []string{"text"}
	if m.Images {
		input = append(input, "image")
	}
	cost := map[string]any{"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0}
	if c := m.Cost; c != nil {
		cost = rates(c.Rates)
		if len(c.Tiers) > 0 {
			tiers := make([]map[string]any, len(c.Tiers))
			for i, t := range c.Tiers {
				tiers[i] = rates(t.Rates)
				tiers[i]["inputTokensAbove"] = t.InputTokensAbove
			}
			cost["tiers"] = tiers
		}
	}
	return map[string]any{"id": m.ID, "name": name, "provider": m.Provider, "api": m.API, "baseUrl": m.BaseURL,
		"reasoning": m.Reasoning, "input": input, "cost": cost, "contextWindow": m.ContextWindow, "maxTokens": m.MaxTokens}
}

func rates(r provider.Rates) map[string]any {
	return map[string]any{"input": r.Input, "output": r.Output, "cacheRead": r.CacheRead, "cacheWrite": r.CacheWrite}
}

// notify shows text to the client (fire and forget).
func (s *Server) notify(text string) {
	s.out.emit(map[string]any{"type": "extension_ui_request", "id": newUIID(), "method": "notify", "message": text, "notifyType": "info"})
}

func newUIID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Permission answers, as the options of the select dialog.
const (
	answerAllowOnce   = "Allow once"
	answerAllowAlways = "Always allow"
	answerDeny        = "Deny"
)

// Ask puts a permission question to the client as a select dialog and
// waits for the answer (or ctx).
func (s *Server) Ask(ctx context.Context, q permission.Question) (permission.Answer, error) {
	id := newUIID()
	ch := make(chan rpcCommand, 1)
	s.mu.Lock()
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	title := "Allow " + q.Tool
	switch {
	case q.Command != "":
		title += ": " + q.Command
	case q.Path != "":
		title += ": " + q.Path
	}
	if q.Reason != "" {
		title += " (" + q.Reason + ")"
	}
	s.out.emit(map[string]any{"type": "extension_ui_request", "id": id, "method": "select", "title": title,
		"options": []string{answerAllowOnce, answerAllowAlways + " (" + q.Suggested + ")", answerDeny}})
	select {
	case <-ctx.Done():
		return permission.Answer{}, ctx.Err()
	case c := <-ch:
		if c.Cancelled || c.Value == nil {
			return permission.Answer{Choice: permission.DenyCall}, nil
		}
		switch v := *c.Value; {
		case v == answerAllowOnce:
			return permission.Answer{Choice: permission.AllowOnce}, nil
		case len(v) >= len(answerAllowAlways) && v[:len(answerAllowAlways)] == answerAllowAlways:
			return permission.Answer{Choice: permission.AllowAlways}, nil
		}
		return permission.Answer{Choice: permission.DenyCall}, nil
	}
}

// answerNow delivers an extension_ui_response as soon as it is read,
// reporting whether line was one. Questions may be asked while a command
// is being handled (an extension's command asks before the prompt's
// response), so answers cannot wait in line behind it.
func (s *Server) answerNow(line []byte) bool {
	if !bytes.Contains(line, []byte("extension_ui_response")) {
		return false
	}
	var c rpcCommand
	if json.Unmarshal(trimEOL(line), &c) != nil || c.Type != "extension_ui_response" {
		return false
	}
	s.answer(c)
	return true
}

func (s *Server) answer(c rpcCommand) {
	if c.ID == nil {
		return
	}
	s.mu.Lock()
	ch, ok := s.pending[*c.ID]
	s.mu.Unlock()
	if ok {
		select {
		case ch <- c:
		default:
		}
	}
}

// cancelQuestions is a no-op hook point: questions end with their run's
// context, which shutdown cancels.
func (s *Server) cancelQuestions() {}

// lineWriter writes one JSON record per line, LF only, without HTML
// escaping (as the established harness writes them). Events come from
// tool goroutines too, so writes are serialised.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) emit(v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w.Write(b.Bytes())
}

// respondCancellable answers a session change: an extension that kept the
// current session is a success with cancelled: true, as the established
// harness answers it, not an error.
func (s *Server) respondCancellable(c rpcCommand, data map[string]any, err error) {
	if data == nil {
		data = map[string]any{}
	}
	var kept *runtime.KeptError
	cancelled := errors.As(err, &kept)
	if cancelled {
		err = nil
	}
	data["cancelled"] = cancelled
	s.respond(c, data, err)
}
