package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/piwasm/pi/core/tool"
)

// State is a server's connection state, in the established harness's words.
type State string

// States.
const (
	StateDisabled   State = "disabled"
	StateConnecting State = "connecting"
	StateConnected  State = "connected"
	StateFailed     State = "failed"
	// StateDisconnected is a server whose connection dropped after it
	// connected; the next call reconnects.
	StateDisconnected State = "disconnected"
	// StateNeedsAuth is an HTTP server that refused pi without OAuth
	// credentials; `pi mcp login NAME` signs in.
	StateNeedsAuth State = "needs-auth"
)

// StartWait is how long the first prompt waits for servers whose tools it
// declares (the established harness's 10 seconds); a server's own timeout
// shortens it.
const StartWait = 10 * time.Second

// Options configure a [Manager].
type Options struct {
	// Cwd is the session's directory: the one root sent to servers.
	Cwd string
	// Version is pi's version, sent as the client's.
	Version string
	// Getenv resolves ${NAME} in env and header values; Environ gives
	// the environment a stdio server starts with, before its entry's env
	// (nil: none but the entry's).
	Getenv  func(string) string
	Environ func() []string
	// Launch builds the command for a stdio server's argv (the entry's
	// command and args) that may write the temp dir tmp (see
	// [ServerTemp]); nil runs it directly. pi confines it here.
	Launch func(s *Server, argv []string, tmp string) (*exec.Cmd, error)
	// HTTPClient is the client for an HTTP server, nil for one that
	// honours the proxy environment variables. Headers are added on top.
	HTTPClient func(s *Server) *http.Client
	// Auth, when set, gives the OAuth bearer token stored for an HTTP
	// server ("" when there is none).
	Auth func(s *Server) string
	// Registry receives the servers' tools as they appear.
	Registry *tool.Registry
	// TempDir receives the full text of results cut at 20 KB; it is also
	// the temp dir servers may write, unless Cwd lies inside it
	// ([ServerTemp]).
	TempDir string
	// Log receives the servers' logging notifications, one line each.
	Log io.Writer
	// OnChange is called after a server's state or tools changed.
	OnChange func()
	// OnDrop, when set, is told at once that a connected server's
	// connection ended (the process died, the stream broke), with the
	// server's status; the next call reconnects. Without it the drop is
	// one of the next NewProblems.
	OnDrop func(Status)
}

// Manager connects the configured servers and runs their tools. It is
// safe for concurrent use.
type Manager struct {
	opts    Options
	servers []*server

	mu     sync.Mutex
	byName map[string]*server // pi tool name -> server
	tokens atomic.Int64       // progress tokens handed out
	logMu  sync.Mutex
}

// NewManager returns a manager for cfg's servers; nothing starts until
// [Manager.Start] or a call.
func NewManager(cfg *Config, opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Registry == nil {
		opts.Registry = tool.NewRegistry()
	}
	if opts.TempDir == "" {
		opts.TempDir = os.TempDir()
	}
	m := &Manager{opts: opts, byName: map[string]*server{}}
	for _, s := range cfg.Servers {
		st := StateConnecting
		if !s.Enabled {
			st = StateDisabled
		}
		m.servers = append(m.servers, &server{m: m, cfg: s, state: st})
	}
	return m
}

// Start connects every enabled server in the background, all at once.
// It returns immediately; a slow server delays nobody.
func (m *Manager) Start() {
	for _, s := range m.servers {
		if s.cfg.Enabled {
			s.startOnce()
		}
	}
}

// Wait waits until every enabled server whose tools can be declared has
// connected or failed, for at most max, and for a server no longer than
// its own timeout. It returns early when ctx ends.
func (m *Manager) Wait(ctx context.Context, max time.Duration) {
	start := time.Now()
	for _, s := range m.servers {
		if !s.cfg.Enabled || s.cfg.Exposure == Hidden && len(s.cfg.ToolExposure) == 0 {
			continue
		}
		s.startOnce()
		d := min(max, s.cfg.Timeout) - time.Since(start)
		s.mu.Lock()
		// A server that kept a prompt waiting once while connecting
		// keeps no other waiting: the session goes on without it until
		// it connects (or fails).
		hung := s.waitedOut && s.state == StateConnecting
		s.mu.Unlock()
		if d <= 0 || hung {
			continue
		}
		t := time.NewTimer(d)
		select {
		case <-s.connected():
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
			s.mu.Lock()
			if s.state == StateConnecting {
				s.waitedOut = true
			}
			s.mu.Unlock()
		}
		// A tool list the server announced as changed is fetched before
		// the prompt is built.
		refreshed := make(chan struct{})
		go func() {
			s.refreshing.Wait()
			close(refreshed)
		}()
		select {
		case <-refreshed:
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// WaitAll waits until every enabled server has connected or failed, each
// within its own timeout (pi mcp list).
func (m *Manager) WaitAll(ctx context.Context) {
	for _, s := range m.servers {
		if !s.cfg.Enabled {
			continue
		}
		s.startOnce()
		select {
		case <-s.connected():
		case <-ctx.Done():
			return
		}
	}
}

// Tools lists the tools the model may be given now: the live tools of the
// connected servers that are not hidden, in configuration order. pi has
// neither codemode nor tool_search, so codemode and deferred tools are
// declared like direct ones (docs/mcp.md).
func (m *Manager) Tools() []string {
	var out []string
	for _, s := range m.servers {
		s.mu.Lock()
		if s.state == StateConnected || s.state == StateDisconnected {
			for _, t := range s.tools {
				if t.live && t.exposure != Hidden {
					out = append(out, t.name)
				}
			}
		}
		s.mu.Unlock()
	}
	return out
}

// NewProblems returns the servers that failed or need sign-in since the
// last call, each once per failure, so a session can say so once.
func (m *Manager) NewProblems() []Status {
	var out []Status
	for _, s := range m.servers {
		st := s.status()
		s.mu.Lock()
		if (st.State == StateFailed || st.State == StateNeedsAuth || st.State == StateDisconnected) && !s.reported {
			s.reported = true
			out = append(out, st)
		}
		if st.State == StateConnecting && s.waitedOut && !s.reportedSlow {
			s.reportedSlow = true
			st.Error = "no answer yet; the session goes on without it until it connects"
			out = append(out, st)
		}
		s.mu.Unlock()
	}
	return out
}

// Reconnect closes a server's connection and connects it again, waiting
// for the outcome (bounded by its timeout).
func (m *Manager) Reconnect(ctx context.Context, name string) error {
	s := m.server(name)
	if s == nil {
		return fmt.Errorf("no MCP server %q", name)
	}
	if !s.cfg.Enabled {
		return fmt.Errorf("MCP server %q is disabled", name)
	}
	s.shutdown()
	s.mu.Lock()
	s.started, s.done, s.state, s.err = false, nil, StateConnecting, ""
	s.mu.Unlock()
	s.startOnce()
	select {
	case <-s.connected():
	case <-ctx.Done():
		return ctx.Err()
	}
	st := s.status()
	if st.State != StateConnected {
		return fmt.Errorf("%s: %s", st.State, st.Error)
	}
	return nil
}

func (m *Manager) server(name string) *server {
	for _, s := range m.servers {
		if s.cfg.Name == name {
			return s
		}
	}
	return nil
}

// Close ends every connection (stdio servers: stdin closed, then SIGTERM
// and SIGKILL to the process group).
func (m *Manager) Close() {
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.shutdown()
		}()
	}
	wg.Wait()
}

// ToolStatus is one tool as /mcp and pi mcp list show it.
type ToolStatus struct {
	Name     string   `json:"name"`
	Tool     string   `json:"tool"`
	Exposure Exposure `json:"exposure"`
}

// Status is one server as /mcp and pi mcp list show it.
type Status struct {
	Name      string       `json:"name"`
	Scope     string       `json:"scope"`
	Source    string       `json:"source"`
	Enabled   bool         `json:"enabled"`
	Exposure  Exposure     `json:"exposure"`
	Transport string       `json:"transport"`
	State     State        `json:"state"`
	Tools     []ToolStatus `json:"tools"`
	Error     string       `json:"error,omitempty"`
}

// Status reports every configured server.
func (m *Manager) Status() []Status {
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	return out
}

func (m *Manager) changed() {
	if m.opts.OnChange != nil {
		m.opts.OnChange()
	}
}

func (m *Manager) log(server string, p *sdk.LoggingMessageParams) {
	if m.opts.Log == nil || p == nil {
		return
	}
	msg, ok := p.Data.(string)
	if !ok {
		b, _ := json.Marshal(p.Data)
		msg = string(b)
	}
	m.logText(server, fmt.Sprintf("%s %s: %s", p.Level, p.Logger, msg))
}

// logText writes one line about server to the log.
func (m *Manager) logText(server, msg string) {
	if m.opts.Log == nil {
		return
	}
	m.logMu.Lock()
	defer m.logMu.Unlock()
	fmt.Fprintf(m.opts.Log, "%s [%s] %s\n", time.Now().UTC().Format(time.RFC3339), server, strings.ReplaceAll(msg, "\n", " "))
}

// server is one configured server and its connection.
type server struct {
	m   *Manager
	cfg *Server

	mu           sync.Mutex
	state        State
	err          string
	started      bool
	done         chan struct{} // closed when the current attempt ended
	session      *sdk.ClientSession
	proc         *process
	tools        []remoteTool
	instructions string
	closing      bool
	reported     bool // the current failure was returned by NewProblems
	// waitedOut: a prompt waited for this connection attempt in vain
	// (Wait waits no more for it); reportedSlow: NewProblems said so.
	waitedOut, reportedSlow bool
	// refreshing counts tool-list refreshes in flight.
	refreshing sync.WaitGroup
	// notes are tools left out (a name clash), shown with the status.
	notes []string
	// progress maps the progress token of each call in flight to what
	// gives it its timeout again.
	progress sync.Map
}

type remoteTool struct {
	name, remote string
	exposure     Exposure
	live         bool
}

// Transport is how the server is reached, for display: the command line
// or the URL.
func (s *Server) TransportText() string {
	if s.Transport == "http" {
		return s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, Scope: s.cfg.Scope, Source: s.cfg.Source, Enabled: s.cfg.Enabled, Exposure: s.cfg.Exposure,
		Transport: s.cfg.TransportText(), State: s.state, Error: s.err, Tools: []ToolStatus{}}
	if len(s.notes) > 0 && st.Error == "" {
		st.Error = strings.Join(s.notes, "\n")
	}
	for _, t := range s.tools {
		if t.live {
			st.Tools = append(st.Tools, ToolStatus{Name: t.name, Tool: t.remote, Exposure: t.exposure})
		}
	}
	return st
}

func (s *server) startOnce() {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return
	}
	s.started = true
	s.closing = false
	s.reported = false
	s.waitedOut, s.reportedSlow = false, false
	s.done = make(chan struct{})
	done := s.done
	s.mu.Unlock()
	go func() {
		s.connect()
		close(done)
		s.m.changed()
	}()
}

// connected returns the channel closed when the current attempt ended.
func (s *server) connected() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return s.done
}

func (s *server) fail(state State, err error) {
	s.mu.Lock()
	s.state = state
	s.err = err.Error()
	if s.proc != nil {
		if tail := s.proc.stderr.String(); tail != "" {
			s.err += "\n" + tail
		}
	}
	s.mu.Unlock()
}

// connect runs one connection attempt within the server's timeout.
func (s *server) connect() {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.Timeout)
	defer cancel()
	s.mu.Lock()
	s.state = StateConnecting
	s.mu.Unlock()

	client := sdk.NewClient(&sdk.Implementation{Name: "pi", Version: s.m.opts.Version}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			// Counted before the handler returns, so a prompt that
			// starts next waits for the new list (Wait).
			s.refreshing.Add(1)
			go func() {
				defer s.refreshing.Done()
				s.refreshTools()
			}()
		},
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			s.m.log(s.cfg.Name, r.Params)
		},
		// A call that reports progress is alive: each notification
		// gives it its timeout again.
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			if r.Params == nil {
				return
			}
			if tok, ok := r.Params.ProgressToken.(string); ok {
				if f, ok := s.progress.Load(tok); ok {
					f.(func())()
				}
			}
		},
	})
	// The one root is the session's directory, as the established harness
	// sends it.
	if cwd := s.m.opts.Cwd; cwd != "" {
		client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(cwd)}).String(), Name: filepath.Base(cwd)})
	}
	var transport sdk.Transport
	var proc *process
	switch s.cfg.Transport {
	case "http":
		t, err := s.httpTransport(ctx)
		if err != nil {
			s.fail(StateFailed, err)
			return
		}
		transport = t
	default:
		p, err := s.startProcess(ctx)
		if err != nil {
			s.fail(StateFailed, err)
			return
		}
		proc = p
		s.mu.Lock()
		s.proc = p
		s.mu.Unlock()
		transport = &sdk.IOTransport{Reader: io.NopCloser(p.stdout), Writer: p}
	}
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		if proc != nil {
			proc.Close()
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("no answer within %s (its timeout); the session goes on without it", s.cfg.Timeout)
		}
		state := StateFailed
		if isUnauthorized(err) {
			state, err = StateNeedsAuth, fmt.Errorf("the server asks for sign-in (OAuth): run pi mcp login %s", s.cfg.Name)
		}
		s.fail(state, err)
		return
	}
	s.mu.Lock()
	s.session = cs
	if r := cs.InitializeResult(); r != nil {
		s.instructions = r.Instructions
	}
	s.mu.Unlock()
	if err := s.listTools(ctx, cs); err != nil {
		cs.Close()
		s.fail(StateFailed, fmt.Errorf("list tools: %w", err))
		return
	}
	s.mu.Lock()
	s.state, s.err = StateConnected, ""
	s.mu.Unlock()
	go func() {
		s.dropped(cs, proc, cs.Wait())
		if proc != nil {
			proc.Close()
		}
		s.m.changed()
	}()
}

// dropped records that the connection cs (to the process proc, nil for
// HTTP) closed, with err, unless another connection took its place or pi
// closes it: the next call connects again.
func (s *server) dropped(cs *sdk.ClientSession, proc *process, err error) {
	s.mu.Lock()
	if s.session != cs || s.closing {
		s.mu.Unlock()
		return
	}
	s.session = nil
	s.state = StateDisconnected
	s.err = "the connection closed"
	if err != nil {
		s.err = "the connection closed: " + err.Error()
	}
	if proc != nil {
		if tail := proc.stderr.String(); tail != "" {
			s.err += "\n" + tail
		}
	}
	s.started = false
	s.reported = false
	s.mu.Unlock()
	if f := s.m.opts.OnDrop; f != nil {
		st := s.status()
		s.mu.Lock()
		s.reported = true
		s.mu.Unlock()
		f(st)
	}
}

// listTools fetches every page of the server's tools and registers the
// new ones; tools the server no longer lists become unreachable.
func (s *server) listTools(ctx context.Context, cs *sdk.ClientSession) error {
	var defs []*sdk.Tool
	params := &sdk.ListToolsParams{}
	for {
		r, err := cs.ListTools(ctx, params)
		if err != nil {
			return err
		}
		defs = append(defs, r.Tools...)
		if r.NextCursor == "" || len(defs) > 10000 {
			break
		}
		params = &sdk.ListToolsParams{Cursor: r.NextCursor}
	}
	remotes := make([]string, len(defs))
	for i, d := range defs {
		remotes[i] = d.Name
	}
	m := s.m
	m.mu.Lock()
	defer m.mu.Unlock()
	s.mu.Lock()
	known := map[string]string{} // remote -> pi name, kept across refreshes
	for _, t := range s.tools {
		known[t.remote] = t.name
	}
	s.mu.Unlock()
	names := toolNames(s.cfg.Name, remotes, func(n string) bool {
		if owner, ok := m.byName[n]; ok {
			return owner != s
		}
		_, ok := m.opts.Registry.Get(n)
		return ok
	})
	var tools []remoteTool
	var clashes []string
	for i, d := range defs {
		name := names[i]
		if prev, ok := known[d.Name]; ok {
			name = prev
		}
		if _, ok := m.byName[name]; !ok {
			if err := m.opts.Registry.Add(s.toolFor(name, d)); err != nil {
				// A clash with a tool registered meanwhile: skip it, say so.
				clashes = append(clashes, err.Error())
				continue
			}
			m.byName[name] = s
		}
		tools = append(tools, remoteTool{name: name, remote: d.Name, exposure: s.cfg.ExposureOf(d.Name), live: true})
	}
	s.mu.Lock()
	s.tools = tools
	s.notes = clashes
	s.mu.Unlock()
	return nil
}

func (s *server) refreshTools() {
	s.mu.Lock()
	cs := s.session
	s.mu.Unlock()
	if cs == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.Timeout)
	defer cancel()
	if err := s.listTools(ctx, cs); err == nil {
		s.m.changed()
	}
}

// toolFor is the pi tool that calls the server's tool d.
func (s *server) toolFor(name string, d *sdk.Tool) tool.Tool {
	params := normalizeSchema(d.InputSchema)
	desc := d.Description
	if desc == "" && d.Annotations != nil {
		desc = d.Annotations.Title
	}
	if desc == "" {
		desc = d.Title
	}
	snippet := strings.TrimSpace(strings.SplitN(desc, "\n", 2)[0])
	if snippet == "" {
		snippet = fmt.Sprintf("%s of the MCP server %s", d.Name, s.cfg.Name)
	}
	if len(snippet) > 200 {
		snippet = snippet[:200] + "…"
	}
	t := tool.Tool{
		Name: name, Description: desc, Parameters: params, Snippet: snippet,
		Mode: tool.Sequential, Source: tool.SourceMCP + s.cfg.Name,
		Hints: tool.Hints{OpenWorld: true},
	}
	if a := d.Annotations; a != nil {
		t.Hints.ReadOnly = a.ReadOnlyHint
		t.Hints.Destructive = a.DestructiveHint == nil || *a.DestructiveHint
		t.Hints.OpenWorld = a.OpenWorldHint == nil || *a.OpenWorldHint
		if a.ReadOnlyHint {
			t.Mode = tool.Parallel
			t.Hints.Destructive = false
		}
	}
	remote := d.Name
	t.Run = func(ctx context.Context, call tool.Call, _ tool.Update) (tool.Result, error) {
		return s.call(ctx, name, remote, call.Args), nil
	}
	return t
}

// normalizeSchema is the input schema as the model gets it: an object
// schema, with properties even when the server gave none.
func normalizeSchema(schema any) json.RawMessage {
	b, err := json.Marshal(schema)
	if err != nil || bytes.Equal(b, []byte("null")) {
		b = []byte(`{}`)
	}
	var obj map[string]any
	if json.Unmarshal(b, &obj) != nil || obj == nil {
		obj = map[string]any{}
	}
	if _, ok := obj["type"]; !ok {
		obj["type"] = "object"
	}
	if _, ok := obj["properties"]; !ok {
		obj["properties"] = map[string]any{}
	}
	out, _ := json.Marshal(obj)
	return out
}

// call runs one tool call; every failure is a result the model reads.
func (s *server) call(ctx context.Context, name, remote string, args map[string]any) tool.Result {
	s.mu.Lock()
	live := false
	for _, t := range s.tools {
		if t.name == name {
			live = t.live
		}
	}
	if !live {
		s.mu.Unlock()
		return tool.ErrorResult("The MCP server %q no longer offers the tool %q.", s.cfg.Name, remote)
	}
	s.mu.Unlock()
	// A dropped connection reconnects on the next call.
	s.startOnce()
	select {
	case <-s.connected():
	case <-ctx.Done():
		return tool.ErrorResult("Cancelled while waiting for the MCP server %q.", s.cfg.Name)
	}
	s.mu.Lock()
	cs, proc, state, errText := s.session, s.proc, s.state, s.err
	s.mu.Unlock()
	if cs == nil || state != StateConnected {
		return tool.ErrorResult("The MCP server %q is not connected (%s): %s", s.cfg.Name, state, errText)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(s.cfg.Timeout, func() { cancel(errCallTimeout) })
	defer timer.Stop()
	tok := fmt.Sprintf("pi-%d", s.m.tokens.Add(1))
	s.progress.Store(tok, func() { timer.Reset(s.cfg.Timeout) })
	defer s.progress.Delete(tok)
	if args == nil {
		args = map[string]any{}
	}
	params := &sdk.CallToolParams{Name: remote, Arguments: args}
	params.SetProgressToken(tok)
	r, err := cs.CallTool(ctx, params)
	if errors.Is(err, sdk.ErrConnectionClosed) {
		// Recorded now, not only when the connection's watcher gets to
		// it: the next call, which may come at once, must connect again
		// rather than meet the closed connection.
		s.dropped(cs, proc, err)
	}
	if err != nil {
		if errors.Is(context.Cause(ctx), errCallTimeout) {
			return tool.ErrorResult("The MCP server %q did not answer within %s.", s.cfg.Name, s.cfg.Timeout)
		}
		return tool.ErrorResult("The MCP server %q failed the call: %v", s.cfg.Name, err)
	}
	return toResult(s.cfg.Name, remote, r, s.m.opts.TempDir)
}

func (s *server) shutdown() {
	s.mu.Lock()
	s.closing = true
	cs, proc := s.session, s.proc
	s.session, s.proc = nil, nil
	s.mu.Unlock()
	if cs != nil {
		cs.Close()
	}
	if proc != nil {
		proc.Close()
	}
}

// httpTransport is the streamable HTTP transport with the entry's headers
// (resolved now) and the stored OAuth token, if any.
func (s *server) httpTransport(ctx context.Context) (sdk.Transport, error) {
	headers := http.Header{}
	for _, kv := range s.cfg.Headers {
		v, err := resolveValue(ctx, kv[1], fmt.Sprintf("header %q", kv[0]), s.m.opts.Getenv, s.m.opts.Cwd)
		if err != nil {
			return nil, err
		}
		headers.Set(kv[0], v)
	}
	if headers.Get("Authorization") == "" && s.m.opts.Auth != nil {
		if tok := s.m.opts.Auth(s.cfg); tok != "" {
			headers.Set("Authorization", "Bearer "+tok)
		}
	}
	var base *http.Client
	if s.m.opts.HTTPClient != nil {
		base = s.m.opts.HTTPClient(s.cfg)
	}
	if base == nil {
		base = &http.Client{Transport: http.DefaultTransport}
	}
	endpoint, err := url.Parse(s.cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("url %q: %w", s.cfg.URL, err)
	}
	origin := originOf(endpoint)
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = headerTransport{next: rt, headers: headers, origin: origin}
	// The entry's headers and token are for its own server: a redirect to
	// another origin (another host or port, or https to http) would carry
	// them there, so it is refused rather than followed.
	next := base.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if o := originOf(req.URL); o != origin {
			return &crossOriginError{from: origin, to: o}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &sdk.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: &c, MaxRetries: 2}, nil
}

// originOf is u's origin as browsers compare them: scheme, host and port
// (the scheme's default port when none is written).
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// crossOriginError is a redirect pi refused to follow: it would have sent
// the entry's credentials to another origin.
type crossOriginError struct{ from, to string }

func (e *crossOriginError) Error() string {
	return fmt.Sprintf("the server redirected to %s, another origin than %s: pi does not follow it, so that the entry's headers and sign-in stay with its own server (set the url to where the server is)", e.to, e.from)
}

// headerTransport adds the entry's headers (and bearer token) to the
// requests for the entry's origin, and to no others.
type headerTransport struct {
	next    http.RoundTripper
	headers http.Header
	origin  string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if originOf(r.URL) != h.origin {
		return h.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header[k] = v
	}
	return h.next.RoundTrip(r)
}

// errCallTimeout ends a call that went its timeout without an answer or a
// progress notification.
var errCallTimeout = errors.New("the call's timeout passed")

// isUnauthorized recognises a server's 401 in the SDK's error.
func isUnauthorized(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "401") || strings.Contains(strings.ToLower(err.Error()), "unauthorized"))
}
