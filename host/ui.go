package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/termtext"
	"github.com/tetratelabs/wazero/api"
)

// UI answers the questions extensions ask (pi_ui_select, pi_ui_confirm,
// pi_ui_input, pi_ui_editor, pi_ui_notify) and shows their status entries
// (pi_ui_status). cmd/pi gives each mode its own: a dialog in
// the interactive UI, extension_ui_request records over RPC, and the
// default answers (DefaultUI) in print and JSON mode.
type UI interface {
	// Ask shows q and returns the person's answer. It must return when
	// ctx is done (the question's deadline), with the default answer
	// (Answer{Cancelled: true}). A notification or status entry is
	// shown and returns at once.
	Ask(ctx context.Context, q Question) Answer
}

// Question kinds.
const (
	AskSelect  = "select"
	AskConfirm = "confirm"
	AskInput   = "input"
	AskNotify  = "notify"
	// AskEditor asks for several lines of text, opened with Prefill.
	AskEditor = "editor"
	// AskStatus sets the status entry Key to Message ("" removes it).
	AskStatus = "status"
	// AskTitle sets the terminal window's title to Title.
	AskTitle = "title"
	// AskEditorText puts Message in the person's input editor.
	AskEditorText = "editor_text"
	// AskWidget sets the widget Key to Lines at Placement (no Lines
	// removes it).
	AskWidget = "widget"
)

// Question is one question of an extension. Every text in it comes from
// the guest and has been escaped for the terminal (termtext.Escape) by the
// host; Message keeps its line breaks.
type Question struct {
	Extension   string
	Kind        string // AskSelect, AskConfirm, AskInput, AskEditor, AskNotify, AskStatus, AskTitle, AskEditorText or AskWidget
	Title       string
	Message     string
	Options     []string // select
	Placeholder string   // input
	Level       string   // notify: "info", "warning" or "error"
	Prefill     string   // editor (line breaks kept)
	Lines       []string // widget
	Placement   string   // widget: abi.WidgetAbove, abi.WidgetBelow or "" (above)
	// Key is a status entry's key: the extension's name, followed by
	// ":" and the key the guest gave when it gave one, so that one
	// extension cannot replace another's entry.
	Key     string
	Timeout time.Duration
}

// Answer is the person's answer: the option chosen (select) or the text
// typed (input), or Confirmed (confirm). Cancelled is the default answer:
// nothing chosen, not confirmed.
type Answer struct {
	Value     string
	Confirmed bool
	Cancelled bool
}

// QuestionTimeout bounds the time a person has to answer one question.
const QuestionTimeout = 60 * time.Second

// Limits of a question's request, so that a guest cannot make the host
// hold or draw arbitrary amounts of text.
const (
	maxUIRequest = 16 << 10
	maxUIOptions = 64
	maxUIAnswer  = 16 << 10
)

// DefaultUI is the UI of a run without anyone to ask (print and JSON
// mode): every dialog gets its default answer at once, and notifications
// are written to W (stderr) as "[extension] level: text".
type DefaultUI struct {
	mu sync.Mutex
	W  io.Writer
}

// Ask implements UI.
func (d *DefaultUI) Ask(_ context.Context, q Question) Answer {
	if q.Kind == AskNotify && d.W != nil {
		text := q.Title
		if q.Message != "" {
			if text != "" {
				text += ": "
			}
			text += q.Message
		}
		d.mu.Lock()
		fmt.Fprintf(d.W, "[%s] %s: %s\n", q.Extension, q.Level, termtext.Escape(text))
		d.mu.Unlock()
	}
	return Answer{Cancelled: true}
}

// uiAsked is the last question of a call and its answer when the answer
// did not fit the guest's buffer, kept so that the guest gets the same
// answer when it asks again with a larger one (without asking the person
// twice).
type uiAsked struct {
	kind, req string
	answer    []byte
	code      int64
}

// uiCall runs one pi_ui_* host function: it reads the request, asks (or
// replays the last answer) and delivers the result.
func (e *Extension) uiCall(ctx context.Context, m api.Module, kind string, s []uint64, withDst bool) int64 {
	mem := m.Memory()
	req, ok := readGuest(mem, uint32(s[0]), uint32(s[1]), maxUIRequest)
	if !ok {
		return abi.ErrInvalid
	}
	if !withDst {
		_, code := e.ask(ctx, kind, req)
		return code
	}
	cs := e.call
	var val []byte
	var code int64
	if cs != nil && cs.asked != nil && cs.asked.kind == kind && cs.asked.req == req {
		last := cs.asked
		val, code = last.answer, last.code // the same question again, with a larger buffer
	} else {
		val, code = e.ask(ctx, kind, req)
	}
	if cs != nil {
		cs.asked = nil
	}
	if code < 0 {
		return code
	}
	n := deliver(mem, val, uint32(s[2]), uint32(s[3]))
	if cs != nil && n > int64(uint32(s[3])) {
		// Did not fit: keep the answer for the guest's retry.
		cs.asked = &uiAsked{kind: kind, req: req, answer: val, code: code}
	}
	return n
}

// uiBlock runs one pi_ui_*_block host function: the request is the
// Extism block at arg; the answer of select and input is a new block.
func (e *Extension) uiBlock(ctx context.Context, kind string, arg uint64, answerBlock bool) int64 {
	k := e.kernel()
	if k == nil {
		return abi.ErrInvalid
	}
	b, ok := k.block(arg)
	if !ok || len(b) > maxUIRequest {
		return abi.ErrInvalid
	}
	val, code := e.ask(ctx, kind, string(b))
	if code < 0 || !answerBlock {
		return code
	}
	return int64(k.write(val))
}

// ask answers the request req of kind for the call in progress: the value
// (select, input) and 0, or a code (confirm: 1 or 0; notify: 0; or a
// negative abi error code).
func (e *Extension) ask(ctx context.Context, kind, req string) ([]byte, int64) {
	cs := e.call
	if cs == nil {
		return nil, abi.ErrDenied // outside a call (a start function)
	}
	q, orig, ok := parseQuestion(kind, req)
	if !ok {
		return nil, abi.ErrInvalid
	}
	if cs.questions >= abi.MaxUIQuestions {
		return nil, abi.ErrDenied
	}
	cs.questions++
	q.Extension = termtext.Escape(e.Name())
	ui := e.rt.cfg.UI
	if ui == nil {
		ui = &DefaultUI{}
	}
	if kind != AskStatus && kind != AskWidget && kind != AskTitle && kind != AskEditorText {
		// Dialogs and notifications interrupt the person: across calls an
		// extension gets uiBudgetMax of them a minute; the rest take the
		// default answer, told once per minute.
		ok, tell := e.ui.allow(time.Now())
		if tell {
			ui.Ask(ctx, Question{Extension: q.Extension, Kind: AskNotify, Level: "warning", Timeout: q.Timeout,
				Message: fmt.Sprintf("asks too often: its dialogs and notifications get no answer for up to a minute (%d a minute at most)", uiBudgetMax)})
		}
		if !ok {
			return nil, abi.ErrDenied
		}
	}
	if kind == AskStatus || kind == AskWidget {
		q.Key = q.Extension
		if q.Title != "" { // the guest's key, escaped by parseQuestion
			q.Key += ":" + q.Title
			q.Title = ""
		}
	}
	// The question is asked outside the call's deadline: the person's time
	// to answer is not the guest's CPU time. The deadline is paused while
	// the question is open and resumes with what was left of it, so a
	// guest that asks in a loop is still stopped by its deadline (its own
	// work between questions counts) and by the cap on questions above.
	// Pausing keeps wazero's close-on-deadline in place instead of running
	// the question on a second goroutine: the guest's stack stays where it
	// is, blocked in this host function. The question has a deadline of
	// its own (QuestionTimeout, or shorter when the guest asks), derived
	// from the call's parent context so that it never outlives the session.
	if cs.deadline != nil {
		cs.deadline.pause()
		defer cs.deadline.resume()
		ctx = cs.deadline.parent
	}
	qctx, cancel := context.WithTimeout(ctx, q.Timeout)
	defer cancel()
	a := ui.Ask(qctx, q)
	if qctx.Err() != nil {
		a = Answer{Cancelled: true}
	}
	var val []byte
	var code int64
	switch kind {
	case AskSelect:
		i := slices.Index(q.Options, a.Value)
		if a.Cancelled || i < 0 {
			code = abi.ErrNotFound
		} else {
			val = []byte(orig[i])
		}
	case AskInput, AskEditor:
		if a.Cancelled || len(a.Value) > maxUIAnswer || !utf8.ValidString(a.Value) {
			code = abi.ErrNotFound
		} else {
			val = []byte(a.Value)
		}
	case AskConfirm:
		if a.Confirmed && !a.Cancelled {
			code = 1
		}
	}
	return val, code
}

// uiBudgetMax is how many dialogs and notifications one extension may
// show in uiBudgetWindow, whatever number of calls they come from (a hook
// that notifies on every event would otherwise bury the session).
const (
	uiBudgetMax    = 2 * abi.MaxUIQuestions
	uiBudgetWindow = time.Minute
)

// uiBudget counts an extension's recent dialogs and notifications.
type uiBudget struct {
	mu     sync.Mutex
	recent []time.Time // within the window, oldest first
	told   time.Time   // when the person was last told of refusals
}

// allow reports whether one more may be shown at now, and whether the
// person should be told now that they are refused (once a window).
func (b *uiBudget) allow(now time.Time) (ok, tell bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := 0
	for i < len(b.recent) && now.Sub(b.recent[i]) >= uiBudgetWindow {
		i++
	}
	b.recent = b.recent[i:]
	if len(b.recent) < uiBudgetMax {
		b.recent = append(b.recent, now)
		return true, false
	}
	if b.told.IsZero() || now.Sub(b.told) >= uiBudgetWindow {
		b.told = now
		return false, true
	}
	return false, false
}

// parseQuestion reads a UIRequest of kind into a Question with escaped
// texts. orig holds the select's options as the guest sent them (the
// answer is the guest's own option, not its escaped form).
func parseQuestion(kind, req string) (q Question, orig []string, ok bool) {
	var r abi.UIRequest
	if json.Unmarshal([]byte(req), &r) != nil {
		return q, nil, false
	}
	q = Question{Kind: kind, Title: termtext.Escape(r.Title), Message: termtext.EscapeLines(r.Message),
		Placeholder: termtext.Escape(r.Placeholder), Timeout: QuestionTimeout}
	if r.TimeoutMs > 0 && time.Duration(r.TimeoutMs)*time.Millisecond < q.Timeout {
		q.Timeout = time.Duration(r.TimeoutMs) * time.Millisecond
	}
	switch kind {
	case AskSelect:
		if len(r.Options) == 0 || len(r.Options) > maxUIOptions {
			return q, nil, false
		}
		for _, o := range r.Options {
			e := termtext.Escape(o)
			if slices.Contains(q.Options, e) {
				return q, nil, false // two options would be indistinguishable
			}
			q.Options = append(q.Options, e)
		}
		orig = r.Options
	case AskNotify:
		switch r.Level {
		case "":
			q.Level = "info"
		case "info", "warning", "error":
			q.Level = r.Level
		default:
			return q, nil, false
		}
		if r.Title == "" && r.Message == "" {
			return q, nil, false
		}
	case AskStatus:
		// The key travels in Title until ask prefixes it with the
		// extension's name; the text is one line.
		q.Title, q.Message = termtext.Escape(r.Key), termtext.Escape(r.Text)
	case AskEditor:
		if r.Title == "" {
			return q, nil, false
		}
		q.Prefill = termtext.EscapeLines(r.Prefill)
	case AskTitle:
		// An empty title gives the window pi's own title back.
	case AskEditorText:
		q.Message = termtext.EscapeLines(r.Text)
	case AskWidget:
		q.Title = termtext.Escape(r.Key) // as for a status entry
		switch r.Placement {
		case "", abi.WidgetAbove, abi.WidgetBelow:
			q.Placement = r.Placement // "": above, unsaid (as a client is told)
		default:
			return q, nil, false
		}
		if len(r.Lines) > maxUIOptions {
			return q, nil, false
		}
		for _, l := range r.Lines {
			q.Lines = append(q.Lines, termtext.Escape(l))
		}
	default:
		if r.Title == "" {
			return q, nil, false
		}
	}
	return q, orig, true
}

// callDeadline is the context a guest's export runs under: canceled with
// its parent, and past its deadline once it has run for d in total. Unlike
// context.WithTimeout its clock can be paused (while a question waits for
// the person). wazero closes the module when Done is closed and reads Err
// to tell a deadline (DeadlineExceeded) from a cancellation.
type callDeadline struct {
	parent context.Context
	done   chan struct{}
	stop   func() bool // stops watching parent

	mu      sync.Mutex
	err     error
	left    time.Duration // running time left when paused
	started time.Time     // when the clock last (re)started
	timer   *time.Timer   // nil while paused or finished
}

func newCallDeadline(parent context.Context, d time.Duration) *callDeadline {
	c := &callDeadline{parent: parent, done: make(chan struct{}), left: d}
	c.stop = context.AfterFunc(parent, func() { c.finish(parent.Err()) })
	c.resume()
	return c
}

func (c *callDeadline) finish(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	close(c.done)
}

// pause stops the clock.
func (c *callDeadline) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer == nil || c.err != nil {
		return
	}
	if c.timer.Stop() {
		c.left -= time.Since(c.started)
	}
	c.timer = nil
}

// resume restarts the clock with the time left.
func (c *callDeadline) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.timer != nil || c.err != nil {
		return
	}
	c.started = time.Now()
	c.timer = time.AfterFunc(max(c.left, 0), func() { c.finish(context.DeadlineExceeded) })
}

// cancel ends the context and releases its timer.
func (c *callDeadline) cancel() {
	c.stop()
	c.finish(context.Canceled)
}

func (c *callDeadline) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *callDeadline) Done() <-chan struct{}       { return c.done }
func (c *callDeadline) Value(key any) any           { return c.parent.Value(key) }
func (c *callDeadline) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// asksUser reports whether the module imports a pi_ui_* host function.
func (e *Extension) asksUser() bool {
	for _, im := range e.pkg.Imports {
		if im.Module == abi.HostModule {
			switch im.Name {
			case abi.HostUISelect, abi.HostUIInput, abi.HostUIConfirm, abi.HostUINotify, abi.HostUIEditor, abi.HostUIStatus,
				abi.HostUISelectBlock, abi.HostUIInputBlock, abi.HostUIConfirmBlock, abi.HostUINotifyBlock,
				abi.HostUIEditorBlock, abi.HostUIStatusBlock, abi.HostUITitle, abi.HostUITitleBlock,
				abi.HostUIEditorText, abi.HostUIEditorTextBlock, abi.HostUIWidget, abi.HostUIWidgetBlock:
				return true
			}
		}
	}
	return false
}
