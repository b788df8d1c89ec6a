package ui

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/core/agent"
	"github.com/piwasm/pi/core/keybind"
	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/termtext"
	"github.com/piwasm/pi/ui/render"
)

// Messages the model receives besides keys.
type (
	eventsMsg []agent.Event
	noticeMsg string
	bashMsg   struct {
		id     int
		output string
		done   bool
		res    runtime.BashResult
		err    error
		took   time.Duration
	}
	abortedMsg struct{ steering, followUp []string }
	redrawMsg  struct{}
	// streamTickMsg redraws a stream the throttle held back.
	streamTickMsg struct{}
	quitMsg       struct{}
	// sentMsg reports a line submitted in the background.
	sentMsg struct {
		text string
		res  runtime.Result
		err  error
	}
)

// block is one finished piece of the transcript: rendered once per width
// (and expansion) and cached.
type block struct {
	draw     func(width int, expanded bool) string
	cache    string
	width    int
	expanded bool
	// compacting: a compaction is being written.
	compacting bool
}

func (b *block) view(width int, expanded bool) string {
	if b.cache == "" || b.width != width || b.expanded != expanded {
		b.cache, b.width, b.expanded = b.draw(width, expanded), width, expanded
	}
	return b.cache
}

// liveTool is a tool call on screen while it runs.
type liveTool struct {
	id string
	t  render.Tool
	// pics are the result's images.
	pics []picture
	// started is when the call began to run (its elapsed time shows).
	started time.Time
}

// view draws the running call with the time it has run.
func (t *liveTool) view(expanded bool, width int, st render.Styles) string {
	tt := t.t
	if d := time.Since(t.started); !t.started.IsZero() && d >= time.Second {
		tt.Elapsed = d
	}
	return render.ToolCall(tt, expanded, width, st)
}

// clockMsg redraws running calls' elapsed time.
type clockMsg struct{}

// clock keeps the elapsed time of running calls moving: one tick a
// second while any runs.
func (m *Model) clock() tea.Cmd {
	if m.clocking || (len(m.tools) == 0 && m.bash == nil) {
		return nil
	}
	m.clocking = true
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return clockMsg{} })
}

// Model is the session's Bubble Tea model.
type Model struct {
	host   Host
	rt     *runtime.Runtime
	st     render.Styles
	theme  themeState
	width  int
	height int
	md     *render.Markdown
	disp   Display

	// extStatus: the extensions' status entries (pi_ui_status).
	extStatus extStatus
	// extWidgets: the extensions' widgets (pi_ui_widget).
	extWidgets extWidgets
	// extTitle: the window title an extension set (pi_ui_title).
	extTitle string

	blocks  []*block
	printed int // blocks already in the scrollback (inline mode)
	// shown are the blocks inline mode printed, their renderings let go:
	// ctrl+o prints the transcript again from them, expanded or not.
	shown []*block
	// calls are the arguments of the tool calls of the messages drawn,
	// by call id, until their results are drawn (a resumed session).
	calls    map[string]json.RawMessage
	warm     *warmNotice // the last cache refresh's line (cachenotices.go)
	expanded bool
	scroll   int // full-screen: lines scrolled up from the bottom
	// wheelAt and wheelStep are the last wheel step and its size;
	// barUntil is when an "auto" scrollbar hides (full-screen).
	wheelAt   time.Time
	wheelStep int
	barUntil  time.Time
	// compacting: a compaction is being written.
	compacting bool

	// The reply being streamed and its cached rendering.
	streaming     *prompt.Message
	streamText    strings.Builder
	streamView    string
	streamDirty   bool
	lastStreamRun time.Time
	tickPending   bool
	thinking      string
	tools         []*liveTool
	bash          *liveTool // a !command running
	// clocking: a clockMsg is on its way.
	clocking bool

	editor  textarea.Model
	history []string
	histPos int
	menu    []item
	menuSel int
	args    argState // extension commands' argument completion
	// images are the images pasted from the clipboard by the path put in
	// the editor for each; the next message that names one takes it.
	images map[string]prompt.Block
	// pressed is the last key press m.is spelt, spelling its Keystroke
	// and String.
	pressed  tea.KeyPressMsg
	spelling [2]string
	spelt    bool
	// keys are the bindings in force (keybindings.json over the defaults).
	keys *keybind.Bindings
	// shortcuts are the extensions' keys pi honours, in load order.
	shortcuts     map[string]Shortcut
	shortcutOrder []string
	dialog        *dialog
	waiting       []*dialog // questions queued behind the open dialog
	// picker is the /tree navigator or the /fork picker; input a one-line
	// question (a label, summary instructions).
	picker *picker
	input  *input
	// navCancel stops a branch summary being written (esc).
	navCancel func()
	// lastEsc is when esc was last pressed on an empty editor (twice
	// opens /tree, per doubleEscapeAction).
	lastEsc  time.Time
	notice   string
	working  bool
	queue    []string
	followUp []string
	ctrlC    time.Time
	quitting bool
	nextBash int
	initial  []session.Input
	// scoped is the ctrl+p cycle chosen with /scoped-models (nil: the
	// host's scope).
	scoped []string
	// send delivers a message from another goroutine (set by Run).
	send func(tea.Msg)
	// tstate is what is known of the terminal (ui/terminal.go).
	tstate termState
}

// item is one completion candidate.
type item struct {
	value, label, desc string
}

// New builds the model. Run is the usual entry; tests and benchmarks use
// New directly.
func New(h Host) *Model {
	st := render.Plain()
	st.HideThinking = h.HideThinking
	ed := textarea.New()
	ed.Placeholder = "Ask pi, / for commands, @ for files, ! to run a command"
	ed.ShowLineNumbers = false
	ed.Prompt = "> "
	ed.SetHeight(1)
	ed.MaxHeight = 8
	ed.Focus()
	ed.SetVirtualCursor(!h.Terminal.HardwareCursor)
	m := &Model{host: h, rt: h.Runtime, st: st, width: 80, height: 24, editor: ed, initial: h.Initial, disp: DefaultDisplay()}
	if h.Display != nil {
		m.disp = *h.Display
	}
	m.setKeys(m.hostKeys())
	m.theme.appearance = h.Appearance
	themeNote := m.applyTheme()
	m.md = m.newMarkdown(m.width)
	m.sizeEditor()
	m.addStartup(h.Startup)
	m.showHistory(h.Runtime.Messages())
	if h.Notices != "" {
		m.addNotice(h.Notices)
	}
	if themeNote != "" {
		m.addNotice(themeNote)
	}
	if h.Shortcuts != nil {
		if notes := m.bindShortcuts(h.Shortcuts()); notes != "" {
			m.addNotice(notes)
		}
	}
	if h.WhatsNew != "" {
		news := h.WhatsNew
		m.addBlock(func(w int, _ bool) string { return m.md.Render(news) })
	}
	if h.Trust != nil {
		m.dialog = trustDialog(h.TrustDir)
	}
	return m
}

// Init sends the initial messages (unless the trust question comes first).
func (m *Model) Init() tea.Cmd {
	if m.dialog != nil {
		return tea.Batch(m.themeInit(), m.terminalInit())
	}
	return tea.Batch(m.themeInit(), m.terminalInit(), m.sendInitial())
}

func (m *Model) sendInitial() tea.Cmd {
	if len(m.initial) == 0 {
		return nil
	}
	first := m.initial[0]
	m.initial = m.initial[1:]
	return m.submit(first.Text, first.Images, runtime.Refuse)
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	mm, cmd := m.update(msg)
	// A question that arrived while another dialog was open comes next.
	if m.dialog == nil && len(m.waiting) > 0 {
		m.dialog, m.waiting = m.waiting[0], m.waiting[1:]
	}
	return mm, cmd
}

// show opens d, or queues it behind the dialog already open: a question
// (a permission, an extension's) must never replace another one, whose
// asker would then wait in vain.
func (m *Model) show(d *dialog) {
	if m.dialog != nil {
		m.waiting = append(m.waiting, d)
		return
	}
	m.dialog = d
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, ok := m.terminalMsg(msg); ok {
		return m, cmd
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		if m.md.Width() != m.width {
			m.md = m.newMarkdown(m.width)
			m.streamDirty = true
		}
		m.sizeEditor()
		// What New put in the transcript (notices, a resumed session's
		// history) goes to the scrollback once the width is known.
		return m, m.flush()
	case tea.BackgroundColorMsg:
		return m, m.backgroundColor(msg)
	case tea.ColorProfileMsg:
		m.theme.profile = msg.Profile
		return m, nil
	case eventsMsg:
		cmd := m.events(msg)
		return m, tea.Batch(cmd, m.flush())
	case sentMsg:
		return m, m.sent(msg)
	case abortedMsg:
		restored := append(msg.steering, msg.followUp...)
		if len(restored) > 0 && m.editor.Value() == "" {
			m.editor.SetValue(strings.Join(restored, "\n"))
		}
		return m, nil
	case bashMsg:
		return m, m.bashUpdate(msg)
	case editedMsg:
		return m, m.edited(msg)
	case argItemsMsg:
		return m, m.argItems(msg)
	case noticeMsg:
		m.addNotice(string(msg))
		return m, m.flush()
	case navigatedMsg:
		return m, m.navigated(msg)
	case askMsg:
		m.show(permissionDialog(msg))
		return m, nil
	case extAskMsg:
		m.show(extensionDialog(msg))
		return m, nil
	case extStatusMsg:
		m.extStatus.set(msg.key, msg.text)
		return m, nil
	case extWidgetMsg:
		m.extWidgets.set(msg)
		return m, nil
	case extTitleMsg:
		m.extTitle = string(msg)
		return m, nil
	case extEditorTextMsg:
		m.editor.SetValue(string(msg))
		m.resizeEditor()
		return m, nil
	case extDoneMsg:
		for i, d := range m.waiting {
			if d.owner == msg.reply {
				m.waiting = append(m.waiting[:i:i], m.waiting[i+1:]...)
				return m, nil
			}
		}
		if m.dialog != nil && m.dialog.owner == msg.reply {
			m.dialog = nil
			m.addNotice("the extension's question timed out: its default answer was taken")
			return m, m.flush()
		}
		return m, nil
	case sessionTextsMsg:
		msg.p.gotTexts(msg) // the /resume picker's search text
		return m, nil
	case redrawMsg:
		return m, nil
	case clockMsg:
		m.clocking = false
		return m, m.clock()
	case streamTickMsg:
		m.tickPending = false
		m.refreshStream(true)
		return m, nil
	case quitMsg:
		m.quitting = true
		return m, tea.Quit
	case tea.PasteMsg:
		if m.dialog != nil && m.dialog.custom != nil {
			return m, m.dialog.custom.paste(msg.Content)
		}
		if m.dialog != nil && m.dialog.input {
			m.dialog.typed = append(m.dialog.typed, []rune(strings.TrimRight(msg.Content, "\r\n"))...)
			return m, nil
		}
		m.editor.InsertString(msg.Content)
		m.resizeEditor()
		m.complete()
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case pastedMsg:
		return m, m.pasted(msg)
	case tea.MouseWheelMsg:
		return m, m.wheel(msg)
	}
	return m, nil
}

// key dispatches a press through the bindings in force (m.keys): the
// open dialog, question or list first, then the extensions' shortcuts,
// then the session's actions, then the editor.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if !m.is(k, "app.clear") {
		m.ctrlC = time.Time{}
	}
	if m.dialog != nil {
		return m.dialogKey(k)
	}
	if m.input != nil {
		return m.inputKey(k)
	}
	if m.picker != nil {
		return m.pickerKey(k)
	}
	if !m.is(k, "app.interrupt") {
		m.lastEsc = time.Time{}
	}
	if cmd, ok := m.runShortcut(s); ok {
		return cmd
	}
	if len(m.menu) > 0 {
		switch {
		case (m.is(k, "app.interrupt") || m.is(k, "tui.select.cancel")) && !m.is(k, "app.clear"):
			m.menu = nil
			return nil
		case m.is(k, "tui.select.up"):
			m.menuSel = (m.menuSel + len(m.menu) - 1) % len(m.menu)
			return nil
		case m.is(k, "tui.select.down"):
			m.menuSel = (m.menuSel + 1) % len(m.menu)
			return nil
		case m.is(k, "tui.input.tab"):
			m.accept()
			return nil
		}
	}
	switch {
	case m.is(k, "app.clipboard.pasteImage"):
		return m.pasteClipboard()
	case m.is(k, "app.clear"):
		if m.editor.Value() != "" {
			m.editor.Reset()
			m.menu = nil
			m.resizeEditor()
			return nil
		}
		if !m.ctrlC.IsZero() && time.Since(m.ctrlC) < 2*time.Second {
			return m.quit()
		}
		m.ctrlC = time.Now()
		m.notice = "press " + m.keyNames("app.clear") + " again to quit"
		return nil
	case m.is(k, "app.exit") && m.editor.Value() == "":
		return m.quit()
	case m.is(k, "app.interrupt"):
		if m.navCancel != nil {
			m.navCancel()
			return nil
		}
		if m.working || m.compacting {
			// A compaction's summary request is stopped the same way.
			m.notice = "aborting…"
			rt := m.rt
			return func() tea.Msg {
				st, fu := rt.Abort()
				return abortedMsg{st, fu}
			}
		}
		return m.doubleEscape()
	case m.is(k, "tui.editor.historyPrevious") || m.is(k, "tui.editor.historyNext"):
		if len(m.history) > 0 {
			m.browseHistory(m.is(k, "tui.editor.historyPrevious"))
		}
		return nil
	case m.is(k, "app.message.dequeue"):
		return m.dequeue()
	case m.is(k, "app.tools.expand"):
		return m.toggleExpanded()
	case m.is(k, "app.thinking.toggle"):
		return m.toggleThinking()
	case m.is(k, "app.thinking.cycle") && len(m.menu) == 0:
		return m.cycleThinking()
	case m.is(k, "app.model.cycleForward"):
		return m.cycleModel(1)
	case m.is(k, "app.model.cycleBackward"):
		return m.cycleModel(-1)
	case m.is(k, "app.model.select"):
		return m.cmdModel("")
	case m.is(k, "app.editor.external"):
		return m.externalEditor()
	case m.is(k, "app.suspend"):
		if goruntime.GOOS == "windows" {
			m.notice = "Windows terminals cannot suspend a program"
			return nil
		}
		return tea.Suspend
	case m.is(k, "app.session.new"):
		return m.line("/new", runtime.Steer)
	case m.is(k, "app.session.tree"):
		return m.line("/tree", runtime.Steer)
	case m.is(k, "app.session.fork"):
		return m.line("/fork", runtime.Steer)
	case m.is(k, "app.session.resume"):
		return m.line("/resume", runtime.Steer)
	case (m.is(k, "tui.editor.cursorUp") || m.is(k, "tui.editor.cursorDown")) && m.editor.LineCount() <= 1 && len(m.history) > 0:
		m.browseHistory(m.is(k, "tui.editor.cursorUp"))
		return nil
	case m.is(k, "tui.altScreen.pageUp"):
		m.scroll += m.height / 2
		return m.scrolled()
	case m.is(k, "tui.altScreen.pageDown"):
		m.scroll = max(0, m.scroll-m.height/2)
		return m.scrolled()
	case m.is(k, "tui.input.submit") || m.is(k, "app.message.followUp"):
		b := runtime.Steer
		if !m.is(k, "tui.input.submit") {
			b = runtime.FollowUp
		}
		return m.enter(b)
	}
	var cmd tea.Cmd
	m.editor, cmd = m.editor.Update(k)
	m.resizeEditor()
	m.complete()
	if ask := m.askArgs(); ask != nil {
		return tea.Batch(cmd, ask)
	}
	return cmd
}

// enter sends the editor's text (b: steer or follow up while pi works),
// first completing a menu's choice the text is a prefix of.
func (m *Model) enter(b runtime.Behavior) tea.Cmd {
	if len(m.menu) > 0 {
		sel := m.menu[m.menuSel]
		if v := m.editor.Value(); strings.HasPrefix(sel.value, v) && v != sel.value && !strings.Contains(v, " ") {
			m.accept()
			if strings.HasPrefix(sel.value, "@") {
				return nil
			}
		}
	}
	raw := m.editor.Value()
	text := strings.TrimSpace(raw)
	if text == "" {
		return nil
	}
	// A leading space says "this is text": no command, no !shell.
	asText := strings.HasPrefix(raw, " ")
	m.editor.Reset()
	m.menu = nil
	m.resizeEditor()
	m.history = append(m.history, text)
	m.histPos = len(m.history)
	images := m.pastedImages(text)
	if asText || len(images) > 0 && !strings.HasPrefix(text, "/") && !strings.HasPrefix(text, "!") {
		return m.submit(text, images, b)
	}
	return m.line(text, b)
}

// dequeue puts the queued messages (steering, then follow-ups) back in
// the editor, above what is typed there, and leaves pi working.
func (m *Model) dequeue() tea.Cmd {
	steer, follow := m.rt.ClearQueue()
	all := append(steer, follow...)
	if len(all) == 0 {
		m.notice = "no queued messages to restore"
		return nil
	}
	text := strings.Join(all, "\n\n")
	if cur := m.editor.Value(); strings.TrimSpace(cur) != "" {
		text += "\n\n" + cur
	}
	m.editor.SetValue(text)
	m.resizeEditor()
	m.queue, m.followUp = nil, nil
	plural := "s"
	if len(all) == 1 {
		plural = ""
	}
	m.notice = fmt.Sprintf("restored %d queued message%s to the editor", len(all), plural)
	return nil
}

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	rt := m.rt
	working := m.working
	return func() tea.Msg {
		if working {
			rt.Abort()
		}
		return quitMsg{}
	}
}

func (m *Model) resizeEditor() {
	m.editor.SetHeight(min(max(1, m.editor.LineCount()), 8))
}

func (m *Model) browseHistory(up bool) {
	if up && m.histPos > 0 {
		m.histPos--
	} else if !up && m.histPos < len(m.history) {
		m.histPos++
	}
	if m.histPos == len(m.history) {
		m.editor.Reset()
		return
	}
	m.editor.SetValue(m.history[m.histPos])
}

// line handles a submitted line: a built-in command, a direct command, or
// text for the agent (steering or a follow-up while it works).
func (m *Model) line(text string, b runtime.Behavior) tea.Cmd {
	switch {
	case strings.HasPrefix(text, "!!"):
		return m.runBash(strings.TrimSpace(text[2:]), false)
	case strings.HasPrefix(text, "!"):
		return m.runBash(strings.TrimSpace(text[1:]), true)
	case strings.HasPrefix(text, "/"):
		name, args, _ := strings.Cut(text, " ")
		if cmd, ok := m.slash(name, strings.TrimSpace(args)); ok {
			return cmd
		}
	}
	return m.submit(text, nil, b)
}

// submit hands a line to the runtime off the UI goroutine (an extension
// command may take a moment).
func (m *Model) submit(text string, images []prompt.Block, b runtime.Behavior) tea.Cmd {
	if r := m.rt.State().Route; r.Provider == "" && r.ModelID == "" {
		// Opened without a model: nothing to send to.
		m.addNotice("✗ no model to send to: /login PROVIDER stores an API key, /model PROVIDER/ID picks a model (models.json lists your own)")
		return m.flush()
	}
	rt := m.rt
	if !m.working {
		b = runtime.Refuse
	}
	m.working = true
	return func() tea.Msg {
		res, err := rt.Prompt(session.Input{Text: text, Images: images}, b)
		if err == runtime.ErrBusy {
			res, err = rt.Prompt(session.Input{Text: text, Images: images}, runtime.Steer)
		}
		return sentMsg{text: text, res: res, err: err}
	}
}

func (m *Model) sent(s sentMsg) tea.Cmd {
	if s.err != nil {
		m.working = m.rt.State().Running
		m.addNotice("✗ " + s.err.Error())
		return m.flush()
	}
	switch s.res.Disposition {
	case runtime.Handled:
		m.working = m.rt.State().Running
		if s.res.Input.Show != "" {
			m.addNotice(s.res.Input.Show)
		}
		return tea.Batch(m.flush(), m.sendInitial())
	case runtime.Queued:
		m.notice = "queued: " + firstLine(s.text)
	}
	return nil
}

// events applies a batch of runtime events.
func (m *Model) events(evs []agent.Event) tea.Cmd {
	var cmds []tea.Cmd
	for _, e := range evs {
		if c := m.runEvent(e); c != nil {
			cmds = append(cmds, c)
		}
		switch e.Type {
		case agent.AgentStart:
			m.working = true
		case agent.MessageStart:
			if e.Message != nil && e.Message.Role == "assistant" {
				m.streaming = e.Message
				m.streamText.Reset()
				m.streamView, m.thinking = "", ""
			}
		case agent.MessageUpdate:
			if e.Delta != nil {
				switch e.Delta.Type {
				case "text_delta":
					m.streamText.WriteString(e.Delta.Delta)
					m.streamDirty = true
				case "thinking_delta":
					// The last line of the thinking shows while it goes on.
					m.thinking = lastLine(m.thinking + e.Delta.Delta)
				case "text_start", "toolcall_start":
					m.thinking = ""
				}
			}
		case agent.MessageEnd:
			if e.Message != nil {
				if e.Message.Role == "assistant" {
					m.streaming = nil
					m.streamView = ""
				}
				m.addMessage(*e.Message)
				m.cacheMissed(*e.Message)
			}
		case agent.EntryAppended:
			m.cacheWarned(e)
		case agent.ToolExecutionStart:
			m.tools = append(m.tools, &liveTool{id: e.ToolCallID, t: render.Tool{Name: e.ToolName, Args: e.Args, Link: m.fileLink(e.ToolName, e.Args)}, started: time.Now()})
			cmds = append(cmds, m.clock())
		case agent.ToolExecutionUpdate:
			if t := m.tool(e.ToolCallID); t != nil && e.Result != nil {
				t.t.Output = e.Result.Text()
			}
		case agent.ToolExecutionEnd:
			if t := m.tool(e.ToolCallID); t != nil {
				t.t.Done, t.t.IsError, t.t.DurationMs = true, e.IsError, e.DurationMs
				if e.Result != nil {
					t.t.Output, t.t.Details = e.Result.Text(), e.Result.Details
					t.pics = toolPictures(e.Result)
				}
			}
			// Finished calls leave the live area in call order.
			for len(m.tools) > 0 && m.tools[0].t.Done {
				done, pics := m.tools[0].t, m.tools[0].pics
				m.tools = m.tools[1:]
				m.addBlock(m.withPictures(func(w int, x bool) string { return render.ToolCall(done, x, w, m.st) }, pics))
			}
		case agent.CompactionStart, agent.CompactionEnd, agent.SummarizationRetryScheduled,
			agent.SummarizationRetryAttemptStart, agent.SummarizationRetryFinished:
			m.compactionEvent(e)
		case agent.AutoRetryStart:
			m.notice = fmt.Sprintf("%s; retrying (attempt %d of %d)", e.ErrorMessage, e.Attempt, e.MaxAttempts)
		case agent.QueueUpdate:
			m.queue, m.followUp = e.Steering, e.FollowUp
		case agent.AgentSettled:
			m.working = false
			m.streaming = nil
			for _, t := range m.tools {
				done := t.t
				done.Done = true
				m.addBlock(func(w int, x bool) string { return render.ToolCall(done, x, w, m.st) })
			}
			m.tools = nil
			if e.Aborted {
				m.notice = "aborted"
			} else if strings.HasPrefix(m.notice, "queued") || strings.HasPrefix(m.notice, "abort") {
				m.notice = ""
			}
			cmds = append(cmds, m.sendInitial())
		}
	}
	m.refreshStream(false)
	if m.streamDirty && !m.tickPending {
		// Draw the rest of the stream once the throttle allows.
		m.tickPending = true
		cmds = append(cmds, tea.Tick(streamEvery, func(time.Time) tea.Msg { return streamTickMsg{} }))
	}
	return tea.Batch(cmds...)
}

// streamEvery bounds how often the streaming reply is re-rendered as
// markdown: the costly step of a frame.
const streamEvery = 50 * time.Millisecond

func (m *Model) refreshStream(force bool) {
	if !m.streamDirty || (!force && time.Since(m.lastStreamRun) < streamEvery) {
		return
	}
	m.streamView = m.forTerminal(m.md.Render(m.streamText.String()))
	m.streamDirty = false
	m.lastStreamRun = time.Now()
}

func (m *Model) tool(id string) *liveTool {
	for _, t := range m.tools {
		if t.id == id {
			return t
		}
	}
	return nil
}

// historyShown is how many messages of a resumed session are drawn: the
// rest stay in the session file, and drawing them all would make a long
// session slow to open.
const historyShown = 60

func (m *Model) showHistory(msgs []prompt.Message) {
	if n := len(msgs) - historyShown; n > 0 {
		m.addNotice(fmt.Sprintf("… %d earlier message(s) not shown", n))
		msgs = msgs[n:]
	}
	for _, msg := range msgs {
		m.addMessage(msg)
	}
}

func (m *Model) addMessage(msg prompt.Message) {
	switch msg.Role {
	case "user":
		text := msg.Content.Text()
		m.addBlock(m.withPictures(func(w int, _ bool) string { return render.UserLine(text, w, m.st) }, messagePictures(msg.Content)))
	case "assistant":
		mm := msg
		for _, b := range msg.Content.Blocks {
			if b.Type == "toolCall" && b.ID != "" {
				if m.calls == nil {
					m.calls = map[string]json.RawMessage{}
				}
				m.calls[b.ID] = b.Arguments
			}
		}
		if hasVisible(mm) {
			m.addBlock(func(w int, _ bool) string {
				if w == m.md.Width() {
					return render.Assistant(mm, m.md, m.st)
				}
				return render.Assistant(mm, m.newMarkdown(w), m.st)
			})
		}
	case prompt.RoleToolResult:
		// Drawn from the tool events; a resumed session draws it here.
		defer delete(m.calls, msg.ToolCallID)
		if m.streaming == nil && len(m.tools) == 0 && !m.working {
			args := m.calls[msg.ToolCallID]
			t := render.Tool{Name: msg.ToolName, Args: args, Link: m.fileLink(msg.ToolName, args), Output: msg.Content.Text(), Details: msg.Details, Done: true, IsError: msg.Failed(), DurationMs: render.Unknown}
			m.addBlock(m.withPictures(func(w int, x bool) string { return render.ToolCall(t, x, w, m.st) }, messagePictures(msg.Content)))
		}
	}
}

func (m *Model) addNotice(text string) {
	m.addBlock(func(w int, _ bool) string { return render.Notice(text, w, m.st) })
}

func (m *Model) addBlock(draw func(width int, expanded bool) string) {
	m.blocks = append(m.blocks, &block{draw: m.padBlock(func(w int, x bool) string { return m.trim(m.forTerminal(draw(w, x))) })})
}

// trim drops the blanks at the ends of a drawing's lines, unless the
// theme draws panels, whose background fills the width.
func (m *Model) trim(s string) string {
	if m.st.Panels() {
		return s
	}
	return render.TrimLines(s)
}

// flush prints blocks not yet in the scrollback (inline mode).
func (m *Model) flush() tea.Cmd {
	if m.host.FullScreen || m.printed >= len(m.blocks) {
		return nil
	}
	var parts []string
	for _, b := range m.blocks[m.printed:] {
		parts = append(parts, b.view(m.width, m.expanded)+"\n")
	}
	// Printed blocks live in the terminal's scrollback now: only how to
	// draw them again is kept (for ctrl+o), not their renderings, which
	// would grow the heap of a long session.
	for _, b := range m.blocks {
		b.cache = ""
	}
	m.shown = append(m.shown, m.blocks...)
	m.blocks, m.printed = nil, 0
	return tea.Println(m.downsample(strings.Join(parts, "\n")))
}

// clearAll erases the screen and the scrollback and puts the cursor home.
const clearAll = "\x1b[2J\x1b[3J\x1b[H"

// toggleExpanded expands or collapses every tool call's output (ctrl+o).
// Full-screen mode redraws by itself. Inline mode prints the transcript
// again, as the established harness does: its screen and scrollback are
// cleared first, so each line stays once where the terminal honours the
// scrollback's erase (xterm's, tmux's); where it does not, the earlier
// copy stays above.
func (m *Model) toggleExpanded() tea.Cmd {
	m.expanded = !m.expanded
	state := "collapsed"
	if m.expanded {
		state = "expanded"
	}
	m.notice = fmt.Sprintf("tool output %s (%s toggles)", state, m.keyNames("app.tools.expand"))
	if m.host.FullScreen || len(m.shown) == 0 {
		return nil
	}
	var parts []string
	for _, b := range m.shown {
		parts = append(parts, b.view(m.width, m.expanded)+"\n")
		b.cache = ""
	}
	return tea.Sequence(tea.Println(clearAll+m.downsample(strings.Join(parts, "\n"))), tea.ClearScreen)
}

// View draws the live part: in inline mode what is not yet in the
// scrollback; in full-screen mode the tail of the transcript too.
func (m *Model) View() tea.View {
	if m.streamView == "" {
		m.refreshStream(true)
	}
	var live []string
	if m.streaming != nil && m.thinking != "" {
		live = append(live, m.st.Thinking.Render("  thinking… "+truncateTo(termtext.Escape(strings.TrimSpace(m.thinking)), m.width-14)))
	}
	if m.streaming != nil && m.streamView != "" {
		live = append(live, m.live(m.streamView))
	}
	for _, t := range m.tools {
		live = append(live, m.trim(t.view(m.expanded, m.width, m.st)))
	}
	if m.bash != nil {
		live = append(live, m.trim(m.bash.view(m.expanded, m.width, m.st)))
	}
	bottom := m.bottom()
	var content string
	if m.host.FullScreen {
		content = m.screen(strings.Join(live, "\n\n"), bottom)
	} else {
		if len(live) > 0 {
			content = strings.Join(live, "\n\n") + "\n\n"
		}
		content += bottom
	}
	v := tea.NewView(content)
	m.decorate(&v, content)
	v.AltScreen = m.host.FullScreen
	if m.host.FullScreen {
		// The wheel scrolls the transcript (the terminal selects text
		// with shift held).
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.WindowTitle = "pi — " + filepath.Base(m.host.Cwd)
	if m.extTitle != "" {
		v.WindowTitle = m.extTitle
	}
	return v
}

func (m *Model) bottom() string {
	var parts []string
	if m.dialog != nil {
		parts = append(parts, m.dialog.view(m.width, m.st))
	} else if m.input != nil {
		parts = append(parts, m.input.view(m.width, m))
	} else if m.picker != nil {
		parts = append(parts, m.picker.view(m.width, m.height, m))
	} else {
		if len(m.menu) > 0 {
			parts = append(parts, m.menuView())
		}
		for _, q := range m.queue {
			parts = append(parts, m.st.Dim.Render("  steer ↳ "+termtext.Escape(firstLine(q))))
		}
		for _, q := range m.followUp {
			parts = append(parts, m.st.Dim.Render("  then ↳ "+termtext.Escape(firstLine(q))))
		}
		m.styleEditor()
		parts = append(parts, m.extWidgets.view(false, m.width, m.st)...)
		parts = append(parts, m.editorView())
		parts = append(parts, m.extWidgets.view(true, m.width, m.st)...)
	}
	parts = append(parts, m.footer())
	return strings.Join(parts, "\n")
}

func (m *Model) footer() string {
	st := m.rt.State()
	cwd := m.host.Cwd
	if m.host.Home != "" && strings.HasPrefix(cwd, m.host.Home) {
		cwd = "~" + strings.TrimPrefix(cwd, m.host.Home)
	}
	model := st.Route.ModelID
	if st.Route.Provider != "" {
		model = st.Route.Provider + "/" + model
	}
	if model == "" {
		model = "no model"
	}
	rest := " • " + model
	if st.ContextTokens > 0 {
		rest += " • " + tokens(st.ContextTokens)
		if st.Route.ContextWindow > 0 {
			rest += fmt.Sprintf(" (%d%%)", st.ContextTokens*100/st.Route.ContextWindow)
		}
	}
	rest += m.extStatus.line()
	switch {
	case m.notice != "":
		rest += " • " + m.notice
	case m.working:
		rest += " • working… (esc aborts, enter steers, alt+enter queues)"
	}
	// The notice may quote a provider's error: shown escaped. A deep
	// working directory gives way before the notice does ("press ctrl+c
	// again to quit" must be seen): it keeps its last part.
	cwd, rest = termtext.Escape(cwd), termtext.Escape(rest)
	if m.width > 1 {
		cwd = truncateLeft(cwd, m.width-utf8.RuneCountInString(rest))
	}
	return m.st.Dim.Render(truncateTo(cwd+rest, m.width))
}

// truncateLeft shortens s to w runes by dropping its start ("…" marks
// where), keeping at least a few runes of its end.
func truncateLeft(s string, w int) string {
	r := []rune(s)
	w = max(w, 8)
	if len(r) <= w {
		return s
	}
	return "…" + string(r[len(r)-w+1:])
}

func tokens(n int) string {
	if n < 1000 {
		return fmt.Sprintf("%d tokens", n)
	}
	return fmt.Sprintf("%.1fk tokens", float64(n)/1000)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func truncateTo(s string, w int) string {
	r := []rune(s)
	if w > 1 && len(r) > w {
		return string(r[:w-1]) + "…"
	}
	return s
}

// hasVisible reports whether an assistant message draws anything (a reply
// that only calls tools draws nothing: its calls are drawn apart).
func hasVisible(m prompt.Message) bool {
	switch m.StopReason {
	case "aborted", "error", "length":
		return true
	}
	if strings.TrimSpace(m.Content.Str) != "" {
		return true
	}
	for _, b := range m.Content.Blocks {
		if (b.Type == "text" && strings.TrimSpace(b.Text) != "") || (b.Type == "thinking" && strings.TrimSpace(b.Thinking) != "") {
			return true
		}
	}
	return false
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
