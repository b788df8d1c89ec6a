package jsext

import (
	"context"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/termtext"
	"github.com/piwasm/pi/host"
)

// Grant kinds of a JavaScript extension, as --grant NAME:KIND names them.
const (
	GrantExec    = "exec"
	GrantFiles   = "files"
	GrantNetwork = "network"
	GrantEnv     = "env"
)

// Limits of what one host request may move.
const (
	maxFileBytes    = 16 << 20
	maxFetchBytes   = 16 << 20
	maxQuestions    = 64
	maxRandomBytes  = 64 << 10
	fetchTimeout    = 30 * time.Second
	maxExecDuration = 10 * time.Minute
)

// serve answers one __pi_host request of the instance. It runs on the
// goroutine of the call in progress, which holds e.mu.
func (e *Extension) serve(ctx context.Context, op string, payload []byte) ([]byte, error) {
	out, err := e.serveOp(ctx, op, payload)
	if err != nil {
		return nil, err
	}
	if out == nil {
		return []byte("null"), nil
	}
	return json.Marshal(out)
}

func (e *Extension) serveOp(ctx context.Context, op string, payload []byte) (any, error) {
	cfg := e.rt.config()
	switch op {
	case "log":
		var r struct{ Level, Text string }
		if json.Unmarshal(payload, &r) == nil && cfg.Log != nil {
			cfg.Log(e.name, r.Level, r.Text)
		}
		return nil, nil
	case "env":
		var r struct{ Name string }
		if err := json.Unmarshal(payload, &r); err != nil {
			return nil, err
		}
		if !e.granted(GrantEnv, r.Name) {
			e.used["process.env."+r.Name+" (not granted)"] = true
			return nil, nil
		}
		v, ok := os.LookupEnv(r.Name)
		if !ok {
			return nil, nil
		}
		return v, nil
	case "os":
		return map[string]string{"homedir": cfg.Home, "tmpdir": os.TempDir(), "agentDir": cfg.AgentDir}, nil
	case "random":
		var r struct{ N int }
		json.Unmarshal(payload, &r)
		if r.N < 0 || r.N > maxRandomBytes {
			return nil, fmt.Errorf("random: at most %d bytes at a time", maxRandomBytes)
		}
		b := make([]byte, r.N)
		rand.Read(b)
		return base64.StdEncoding.EncodeToString(b), nil
	case "hash":
		var r struct{ Alg, Data string }
		if err := json.Unmarshal(payload, &r); err != nil {
			return nil, err
		}
		var h hash.Hash
		switch strings.ToLower(r.Alg) {
		case "sha256":
			h = sha256.New()
		case "sha1":
			h = sha1.New()
		case "sha512":
			h = sha512.New()
		case "md5":
			h = md5.New()
		default:
			return nil, fmt.Errorf("crypto.createHash: %q is not available (sha256, sha1, sha512, md5 are)", r.Alg)
		}
		b, err := base64.StdEncoding.DecodeString(r.Data)
		if err != nil {
			return nil, err
		}
		h.Write(b)
		return base64.StdEncoding.EncodeToString(h.Sum(nil)), nil
	case "fs":
		return e.serveFS(ctx, payload)
	case "exec":
		return e.serveExec(ctx, payload)
	case "fetch":
		return e.serveFetch(ctx, payload)
	case "ui":
		return e.serveUI(ctx, payload)
	case "tool_update":
		var r struct {
			Text    string          `json:"text"`
			Details json.RawMessage `json:"details"`
		}
		json.Unmarshal(payload, &r)
		if e.call != nil && e.call.update != nil {
			e.call.update(r.Text, r.Details)
		}
		return nil, nil
	case "tools_changed":
		var r struct {
			Tools []ToolInfo `json:"tools"`
		}
		if json.Unmarshal(payload, &r) == nil {
			e.reg.Tools = r.Tools
			// pi builds its tool list once per run: a tool registered
			// later is known from the next run on.
			e.used["registerTool after loading"] = true
		}
		return nil, nil
	case "session":
		var r struct{ What string }
		json.Unmarshal(payload, &r)
		var d SessionData
		if cfg.Session != nil {
			d = cfg.Session()
		}
		if d.Entries == nil {
			d.Entries = []json.RawMessage{}
		}
		if r.What == "name" {
			if d.Name == "" {
				return nil, nil
			}
			return d.Name, nil
		}
		return d, nil
	case "send_user_message":
		var r struct {
			Content json.RawMessage `json:"content"`
			Options json.RawMessage `json:"options"`
		}
		if err := json.Unmarshal(payload, &r); err != nil {
			return nil, err
		}
		if e.call != nil && e.call.sends != nil {
			// Inside a command: the message is what the command sends.
			e.call.sends = append(e.call.sends, contentText(r.Content))
			return nil, nil
		}
		return nil, e.act("pi.sendUserMessage", func(a Actions) error { return a.SendUserMessage(e.name, r.Content, r.Options) })
	case "send_message":
		var r struct {
			Message json.RawMessage `json:"message"`
			Options json.RawMessage `json:"options"`
		}
		if err := json.Unmarshal(payload, &r); err != nil {
			return nil, err
		}
		return nil, e.act("pi.sendMessage", func(a Actions) error { return a.SendMessage(e.name, r.Message, r.Options) })
	case "append_entry":
		var r struct {
			CustomType string          `json:"customType"`
			Data       json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(payload, &r); err != nil {
			return nil, err
		}
		return nil, e.act("pi.appendEntry", func(a Actions) error { return a.AppendEntry(e.name, r.CustomType, r.Data) })
	case "set_session_name":
		var r struct{ Name string }
		json.Unmarshal(payload, &r)
		return nil, e.act("pi.setSessionName", func(a Actions) error { return a.SetSessionName(r.Name) })
	case "set_label":
		var r struct {
			EntryID string `json:"entryId"`
			Label   string `json:"label"`
		}
		json.Unmarshal(payload, &r)
		return nil, e.act("pi.setLabel", func(a Actions) error { return a.SetLabel(r.EntryID, r.Label) })
	case "bus_emit":
		var r struct {
			Name string          `json:"name"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(payload, &r); err != nil {
			return nil, err
		}
		e.rt.emitBus(ctx, e, r.Name, r.Data)
		return nil, nil
	case "tools":
		e.used["pi.getActiveTools/getAllTools"] = true
		return []string{}, nil
	case "thinking_level":
		return nil, nil
	case "set_active_tools", "set_model", "set_thinking_level", "abort", "shutdown", "compact", "context_usage":
		e.used[apiName(op)] = true
		return nil, nil
	}
	return nil, fmt.Errorf("pi: unknown request %q", op)
}

func apiName(op string) string {
	switch op {
	case "set_active_tools":
		return "pi.setActiveTools"
	case "set_model":
		return "pi.setModel"
	case "set_thinking_level":
		return "pi.setThinkingLevel"
	case "context_usage":
		return "ctx.getContextUsage"
	}
	return "ctx." + op
}

// act runs a session action, or records member as unsupported when this
// mode has no actions.
func (e *Extension) act(member string, f func(Actions) error) error {
	if e.rt.config().Actions == nil {
		e.used[member] = true
		return nil
	}
	return f(e.rt.config().Actions)
}

func contentText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct{ Type, Text string }
	json.Unmarshal(c, &parts)
	var out []string
	for _, p := range parts {
		if p.Type == "text" {
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, "\n")
}

// granted reports whether the extension's grant covers item of kind.
func (e *Extension) granted(kind, item string) bool {
	g := e.grant
	switch kind {
	case GrantExec:
		return g.Exec
	case GrantEnv:
		return slices.Contains(g.Env, item) || slices.Contains(g.Env, "*")
	case GrantNetwork:
		return slices.Contains(g.Network, item) || slices.Contains(g.Network, "*")
	case GrantFiles:
		for _, pat := range g.Files {
			if pat == "*" || pat == "**" {
				return true
			}
			if ok, _ := doublestar.Match(pat, filepath.ToSlash(item)); ok {
				return true
			}
			if strings.HasSuffix(pat, "/") && strings.HasPrefix(item, pat) {
				return true
			}
		}
	}
	return false
}

// ErrNotGranted is a capability the extension has no grant for.
var ErrNotGranted = errors.New("not granted")

// need checks a capability, asking the person when pi can (once per item
// and run); the error names the --grant that allows it.
func (e *Extension) need(ctx context.Context, kind, item, what string) error {
	if e.granted(kind, item) {
		return nil
	}
	key := kind + ":" + item
	if ask := e.rt.config().AskGrant; ask != nil && !e.asked[key] {
		e.asked[key] = true
		if ask(ctx, e.name, kind, what) {
			g := e.grant
			g.SHA256 = e.bundle.SHA256
			switch kind {
			case GrantExec:
				g.Exec = true
			case GrantEnv:
				g.Env = append(g.Env, item)
			case GrantNetwork:
				g.Network = append(g.Network, item)
			case GrantFiles:
				g.Files = append(g.Files, item)
			}
			e.grant = g
			if e.rt.config().SaveGrant != nil {
				e.rt.config().SaveGrant(e.name, g)
			}
			return nil
		}
	}
	return fmt.Errorf("EACCES: extension %s may not %s: it has no %s grant (run pi with --grant %s:%s to allow it for this run; the interactive session asks)", e.name, what, kind, e.name, kind)
}

// ---- files ----

type fsRequest struct {
	Op        string `json:"op"`
	Path      string `json:"path"`
	To        string `json:"to"`
	Data      string `json:"data"`
	Append    bool   `json:"append"`
	Recursive bool   `json:"recursive"`
	Force     bool   `json:"force"`
}

// resolve makes p absolute and resolves symlinks of its longest existing
// prefix, so that a link inside the project cannot lead a check astray.
func resolve(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			if rest == "" {
				return r
			}
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func within(p, root string) bool {
	if root == "" {
		return false
	}
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// checkPath applies the file rules: credentials are never reachable; the
// project's files are; anything else needs the files grant. Writes must
// also be writable for the sandbox.
func (e *Extension) checkPath(ctx context.Context, p string, write bool) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("EINVAL: %q is not an absolute path", p)
	}
	r := resolve(p)
	if g := e.rt.config().Guard; g != nil {
		if err := g(false, r); err != nil {
			return "", fmt.Errorf("EACCES: %v", err)
		}
	}
	root := ""
	if e.rt.config().ProjectRoot != "" {
		root = resolve(e.rt.config().ProjectRoot)
	}
	if !within(r, root) {
		verb := "read"
		if write {
			verb = "write"
		}
		if err := e.need(ctx, GrantFiles, r, fmt.Sprintf("%s %s outside the project", verb, p)); err != nil {
			return "", err
		}
	}
	if write {
		if g := e.rt.config().Guard; g != nil {
			if err := g(true, r); err != nil {
				return "", fmt.Errorf("EACCES: %v", err)
			}
		} else if !within(r, root) {
			return "", fmt.Errorf("EACCES: %s is outside the writable project", p)
		}
	}
	return r, nil
}

func fsErr(op, p string, err error) error {
	code := "EIO"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = "ENOENT"
	case errors.Is(err, fs.ErrExist):
		code = "EEXIST"
	case errors.Is(err, fs.ErrPermission):
		code = "EACCES"
	}
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return fmt.Errorf("%s: %s, %s '%s'", code, msg, op, p)
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsRegular():
		return "file"
	}
	return "other"
}

func (e *Extension) serveFS(ctx context.Context, payload []byte) (any, error) {
	var r fsRequest
	if err := json.Unmarshal(payload, &r); err != nil {
		return nil, err
	}
	write := false
	switch r.Op {
	case "write", "mkdir", "remove", "rename", "mkdtemp":
		write = true
	}
	p, err := e.checkPath(ctx, r.Path, write)
	if err != nil {
		return nil, err
	}
	switch r.Op {
	case "read":
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fsErr("open", r.Path, err)
		}
		if fi.IsDir() {
			return nil, fmt.Errorf("EISDIR: illegal operation on a directory, read '%s'", r.Path)
		}
		if fi.Size() > maxFileBytes {
			return nil, fmt.Errorf("EFBIG: %s is larger than the %d MiB an extension may read at once", r.Path, maxFileBytes>>20)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fsErr("open", r.Path, err)
		}
		return map[string]string{"data": base64.StdEncoding.EncodeToString(b)}, nil
	case "stat":
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fsErr("stat", r.Path, err)
		}
		return map[string]any{"kind": kindOf(fi.Mode()), "size": fi.Size(), "mtimeMs": fi.ModTime().UnixMilli(), "mode": uint32(fi.Mode().Perm())}, nil
	case "readdir":
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, fsErr("scandir", r.Path, err)
		}
		out := make([]map[string]string, 0, len(ents))
		for _, d := range ents {
			out = append(out, map[string]string{"name": d.Name(), "kind": kindOf(d.Type())})
		}
		return map[string]any{"entries": out}, nil
	case "realpath":
		return map[string]string{"path": p}, nil
	case "write":
		b, err := base64.StdEncoding.DecodeString(r.Data)
		if err != nil {
			return nil, err
		}
		if len(b) > maxFileBytes {
			return nil, fmt.Errorf("EFBIG: an extension writes at most %d MiB at once", maxFileBytes>>20)
		}
		flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if r.Append {
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		f, err := os.OpenFile(p, flag, 0o644)
		if err != nil {
			return nil, fsErr("open", r.Path, err)
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fsErr("write", r.Path, err)
		}
		return nil, nil
	case "mkdir":
		if r.Recursive {
			err = os.MkdirAll(p, 0o755)
		} else {
			err = os.Mkdir(p, 0o755)
		}
		if err != nil {
			return nil, fsErr("mkdir", r.Path, err)
		}
		return nil, nil
	case "remove":
		if r.Recursive {
			err = os.RemoveAll(p)
		} else {
			err = os.Remove(p)
		}
		if err != nil && !(r.Force && errors.Is(err, fs.ErrNotExist)) {
			return nil, fsErr("rm", r.Path, err)
		}
		return nil, nil
	case "rename":
		to, err := e.checkPath(ctx, r.To, true)
		if err != nil {
			return nil, err
		}
		if err := os.Rename(p, to); err != nil {
			return nil, fsErr("rename", r.Path, err)
		}
		return nil, nil
	case "mkdtemp":
		d, err := os.MkdirTemp(filepath.Dir(p), filepath.Base(p)+"*")
		if err != nil {
			return nil, fsErr("mkdtemp", r.Path, err)
		}
		return map[string]string{"path": d}, nil
	}
	return nil, fmt.Errorf("fs: unknown operation %q", r.Op)
}

// ---- commands ----

func (e *Extension) serveExec(ctx context.Context, payload []byte) (any, error) {
	var r struct {
		Command string  `json:"command"`
		Cwd     string  `json:"cwd"`
		Timeout float64 `json:"timeout"`
		Input   string  `json:"input"`
	}
	if err := json.Unmarshal(payload, &r); err != nil {
		return nil, err
	}
	short := r.Command
	if utf8.RuneCountInString(short) > 80 {
		short = string([]rune(short)[:80]) + "…"
	}
	if err := e.need(ctx, GrantExec, "commands", fmt.Sprintf("run commands (%s)", short)); err != nil {
		return nil, err
	}
	run := e.rt.config().Exec
	if run == nil {
		return nil, errors.New("EACCES: this pi runs no commands for extensions")
	}
	timeout := maxExecDuration
	if r.Timeout > 0 && time.Duration(r.Timeout)*time.Millisecond < timeout {
		timeout = time.Duration(r.Timeout) * time.Millisecond
	}
	cwd := r.Cwd
	if cwd == "" {
		cwd = e.rt.config().Cwd
	}
	// The command is not the guest's CPU time: the call's deadline was
	// paused by the engine for this host request; the command has its own.
	res, err := run(context.WithoutCancel(ctx), ExecRequest{Command: r.Command, Cwd: cwd, Timeout: timeout, Stdin: r.Input})
	if err != nil {
		return nil, err
	}
	return map[string]any{"stdout": res.Stdout, "stderr": res.Stderr, "code": res.Code, "killed": res.Killed}, nil
}

// ---- network ----

func (e *Extension) serveFetch(ctx context.Context, payload []byte) (any, error) {
	var r struct {
		URL     string            `json:"url"`
		Method  string            `json:"method"`
		Headers map[string]string `json:"headers"`
		Body    *string           `json:"body"`
	}
	if err := json.Unmarshal(payload, &r); err != nil {
		return nil, err
	}
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return nil, fmt.Errorf("fetch: %q is not an http(s) URL", r.URL)
	}
	if err := e.need(ctx, GrantNetwork, u.Hostname(), "reach "+u.Hostname()); err != nil {
		return nil, err
	}
	var body io.Reader
	if r.Body != nil {
		body = strings.NewReader(*r.Body)
	}
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(fctx, strings.ToUpper(r.Method), u.String(), body)
	if err != nil {
		return nil, err
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	client := &http.Client{CheckRedirect: func(next *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("too many redirects")
		}
		if !e.granted(GrantNetwork, next.URL.Hostname()) {
			return fmt.Errorf("fetch: a redirect to %s, which extension %s has no network grant for", next.URL.Hostname(), e.name)
		}
		return nil
	}}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxFetchBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
	}
	if len(b) > maxFetchBytes {
		return nil, fmt.Errorf("fetch %s: the answer is larger than %d MiB", u.Redacted(), maxFetchBytes>>20)
	}
	headers := map[string]string{}
	for k, v := range resp.Header {
		headers[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	return map[string]any{"status": resp.StatusCode, "statusText": http.StatusText(resp.StatusCode), "headers": headers,
		"body": base64.StdEncoding.EncodeToString(b), "url": resp.Request.URL.String()}, nil
}

// ---- dialogs ----

func (e *Extension) serveUI(ctx context.Context, payload []byte) (any, error) {
	var r struct {
		Kind        string   `json:"kind"`
		Title       string   `json:"title"`
		Message     string   `json:"message"`
		Options     []string `json:"options"`
		Placeholder string   `json:"placeholder"`
		Prefill     string   `json:"prefill"`
		Level       string   `json:"level"`
		Key         string   `json:"key"`
		Text        string   `json:"text"`
		Lines       []string `json:"lines"`
		Placement   string   `json:"placement"`
		Timeout     float64  `json:"timeout"`
	}
	if err := json.Unmarshal(payload, &r); err != nil {
		return nil, err
	}
	if len(payload) > 64<<10 || len(r.Options) > 64 || len(r.Lines) > 64 {
		return nil, errors.New("ui: the request is too large")
	}
	if e.call != nil {
		e.call.questions++
		if e.call.questions > maxQuestions {
			return nil, fmt.Errorf("ui: at most %d dialogs and notifications per call", maxQuestions)
		}
	}
	ui := e.rt.config().UI
	if ui == nil {
		ui = &host.DefaultUI{}
	}
	ext := termtext.Escape(e.name)
	q := host.Question{Extension: ext, Title: termtext.Escape(r.Title), Message: termtext.EscapeLines(r.Message),
		Placeholder: termtext.Escape(r.Placeholder), Timeout: host.QuestionTimeout}
	if r.Timeout > 0 && time.Duration(r.Timeout)*time.Millisecond < q.Timeout {
		q.Timeout = time.Duration(r.Timeout) * time.Millisecond
	}
	var orig []string
	switch r.Kind {
	case "select":
		q.Kind = host.AskSelect
		for _, o := range r.Options {
			esc := termtext.Escape(o)
			if slices.Contains(q.Options, esc) {
				continue
			}
			q.Options = append(q.Options, esc)
			orig = append(orig, o)
		}
	case "confirm":
		q.Kind = host.AskConfirm
	case "input":
		q.Kind = host.AskInput
	case "editor":
		q.Kind, q.Prefill = host.AskEditor, termtext.EscapeLines(r.Prefill)
	case "notify":
		q.Kind, q.Title, q.Message, q.Level = host.AskNotify, "", termtext.EscapeLines(r.Message), r.Level
	case "status":
		q.Kind, q.Key, q.Message, q.Title = host.AskStatus, ext+":"+termtext.Escape(r.Key), termtext.Escape(r.Text), ""
	case "widget":
		q.Kind, q.Key, q.Title = host.AskWidget, ext+":"+termtext.Escape(r.Key), ""
		if r.Placement == "below" {
			q.Placement = abi.WidgetBelow
		}
		for _, l := range r.Lines {
			q.Lines = append(q.Lines, termtext.Escape(l))
		}
	case "title":
		q.Kind, q.Title = host.AskTitle, termtext.Escape(r.Title)
	case "editor_text":
		q.Kind, q.Message = host.AskEditorText, termtext.EscapeLines(r.Text)
	default:
		return nil, fmt.Errorf("ui: unknown dialog %q", r.Kind)
	}
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), q.Timeout)
	defer cancel()
	a := ui.Ask(qctx, q)
	if qctx.Err() != nil {
		a = host.Answer{Cancelled: true}
	}
	switch r.Kind {
	case "select":
		i := slices.Index(q.Options, a.Value)
		if a.Cancelled || i < 0 {
			return nil, nil
		}
		return orig[i], nil
	case "input", "editor":
		if a.Cancelled {
			return nil, nil
		}
		return a.Value, nil
	case "confirm":
		return a.Confirmed && !a.Cancelled, nil
	}
	return nil, nil
}

// emitBus hands an event-bus message to every other extension of the
// runtime that is not in a call right now (one in a call is where the
// message may have come from; delivering to it would deadlock).
func (r *Runtime) emitBus(ctx context.Context, from *Extension, name string, data json.RawMessage) {
	for _, x := range r.Extensions() {
		if x == from || !x.mu.TryLock() {
			continue
		}
		x.dispatch(ctx, map[string]any{"kind": "bus", "name": name, "data": data}, x.budget, nil)
		x.mu.Unlock()
	}
}
