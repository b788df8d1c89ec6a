package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/termtext"
	"github.com/piwasm/pi/host"
	"github.com/piwasm/pi/ui/render"
)

// ExtensionUI returns the UI that shows extensions' questions (pi_ui_*) as
// dialogs of this session. Before the session is on screen (and after it)
// every question gets its default answer at once.
func (q *Questions) ExtensionUI() host.UI { return extensionUI{q} }

type extensionUI struct{ q *Questions }

// extAskMsg puts an extension's question on screen; extDoneMsg takes it
// down when its deadline passed first.
type extAskMsg struct {
	q     host.Question
	reply chan host.Answer
}

type extDoneMsg struct{ reply chan host.Answer }

func (u extensionUI) Ask(ctx context.Context, question host.Question) host.Answer {
	u.q.mu.Lock()
	send := u.q.send
	u.q.mu.Unlock()
	if send == nil {
		return host.Answer{Cancelled: true}
	}
	switch question.Kind {
	case host.AskNotify:
		send(noticeMsg(notifyText(question)))
		return host.Answer{}
	case host.AskStatus:
		send(extStatusMsg{key: question.Key, text: question.Message})
		return host.Answer{}
	case host.AskTitle:
		send(extTitleMsg(question.Title))
		return host.Answer{}
	case host.AskEditorText:
		send(extEditorTextMsg(question.Message))
		return host.Answer{}
	case host.AskWidget:
		send(extWidgetMsg{key: question.Key, lines: question.Lines, below: question.Placement == abi.WidgetBelow})
		return host.Answer{}
	}
	reply := make(chan host.Answer, 1)
	send(extAskMsg{q: question, reply: reply})
	select {
	case a := <-reply:
		return a
	case <-ctx.Done():
		send(extDoneMsg{reply: reply})
		return host.Answer{Cancelled: true}
	}
}

// notifyText is a notification as the transcript shows it. The texts were
// escaped by the host.
func notifyText(q host.Question) string {
	text := q.Title
	if q.Message != "" {
		if text != "" {
			text += ": "
		}
		text += q.Message
	}
	mark := "•"
	switch q.Level {
	case "warning":
		mark = "⚠"
	case "error":
		mark = "✗"
	}
	// Every line names the extension: a later line of the message must
	// not pass for a notice of pi's own.
	lines := strings.Split(text, "\n")
	for i := range lines {
		lines[i] = "[" + q.Extension + "] " + lines[i]
	}
	return mark + " " + strings.Join(lines, "\n  ")
}

// extensionDialog is the dialog of an extension's question. The title
// names the extension, so that the person knows who asks.
func extensionDialog(a extAskMsg) *dialog {
	q := a.q
	title := fmt.Sprintf("[%s] %s", q.Extension, q.Title)
	answer := func(ans host.Answer) tea.Cmd {
		a.reply <- ans
		return nil
	}
	d := &dialog{title: title, body: q.Message, owner: a.reply, from: q.Extension}
	switch q.Kind {
	case host.AskEditor:
		d.custom = &editorDialog{from: q.Extension, title: title, text: []rune(q.Prefill), reply: a.reply}
	case host.AskSelect:
		for _, o := range q.Options {
			d.options = append(d.options, option{label: o})
		}
		d.choose = func(m *Model, i int) tea.Cmd {
			if i < 0 || i >= len(q.Options) {
				return answer(host.Answer{Cancelled: true})
			}
			return answer(host.Answer{Value: q.Options[i]})
		}
	case host.AskConfirm:
		d.options = []option{{"y", "yes"}, {"n", "no"}}
		d.choose = func(m *Model, i int) tea.Cmd { return answer(host.Answer{Confirmed: i == 0}) }
	default: // input
		if q.Placeholder != "" {
			d.body = strings.TrimSpace(d.body + "\n(" + q.Placeholder + ")")
		}
		d.input, d.plain = true, true
		d.submit = func(m *Model, text string) tea.Cmd { return answer(host.Answer{Value: text}) }
		d.cancel = func(m *Model) tea.Cmd { return answer(host.Answer{Cancelled: true}) }
	}
	return d
}

// askedBy is the last line of an extension's dialog: whatever its title
// and text say, the person reads who asks, and that pi does not.
func askedBy(ext string) string {
	return "asked by the extension " + ext + ", not by pi"
}

// extTitleMsg sets the window's title ("": pi's own); extEditorTextMsg
// puts text in the input editor.
type (
	extTitleMsg      string
	extEditorTextMsg string
)

// extWidgetMsg sets (lines) or removes (none) an extension's widget.
type extWidgetMsg struct {
	key   string
	lines []string
	below bool
}

// maxWidgetLines is how many lines of a widget are drawn, as the
// established harness draws them.
const maxWidgetLines = 10

// extWidgets keeps the extensions' widgets in the order they were set.
type extWidgets struct{ list []extWidgetMsg }

func (w *extWidgets) set(msg extWidgetMsg) {
	w.list = slices.DeleteFunc(w.list, func(x extWidgetMsg) bool { return x.key == msg.key })
	if len(msg.lines) > 0 {
		w.list = append(w.list, msg)
	}
}

// view draws the widgets above (below false) or below the editor, each
// line cut to the width (the texts were escaped by the host).
func (w *extWidgets) view(below bool, width int, st render.Styles) []string {
	var out []string
	for _, x := range w.list {
		if x.below != below {
			continue
		}
		for i, l := range x.lines {
			if i == maxWidgetLines {
				out = append(out, st.Dim.Render(" … (widget cut short)"))
				break
			}
			out = append(out, truncateTo(" "+l, width))
		}
	}
	return out
}

// extStatusMsg sets (text) or removes ("") an extension's status entry.
type extStatusMsg struct{ key, text string }

// extStatus keeps the extensions' status entries in the order they were
// first set; the footer shows them.
type extStatus struct {
	keys []string
	text map[string]string
}

func (s *extStatus) set(key, text string) {
	if s.text == nil {
		s.text = map[string]string{}
	}
	if text == "" {
		if _, ok := s.text[key]; ok {
			delete(s.text, key)
			s.keys = slices.DeleteFunc(s.keys, func(k string) bool { return k == key })
		}
		return
	}
	if _, ok := s.text[key]; !ok {
		s.keys = append(s.keys, key)
	}
	s.text[key] = text
}

// line is the entries as the footer shows them: " • text" each (the
// texts were escaped by the host).
func (s *extStatus) line() string {
	var b strings.Builder
	for _, k := range s.keys {
		b.WriteString(" • " + s.text[k])
	}
	return b.String()
}

// editorDialog is an extension's editor (pi_ui_editor): several lines of
// text, opened with the prefill. Enter hands the text back; shift+enter,
// alt+enter or ctrl+j starts a new line; esc gives no answer.
type editorDialog struct {
	from  string // the extension that asks
	title string
	text  []rune
	reply chan host.Answer
}

// editorRows is how many of the text's last lines the dialog shows.
const editorRows = 12

func (e *editorDialog) key(m *Model, s string) tea.Cmd {
	switch s {
	case "enter":
		m.dialog = nil
		e.reply <- host.Answer{Value: string(e.text)}
	case "esc", "ctrl+c":
		m.dialog = nil
		e.reply <- host.Answer{Cancelled: true}
	case "shift+enter", "alt+enter", "ctrl+j":
		e.text = append(e.text, '\n')
	case "backspace":
		if len(e.text) > 0 {
			e.text = e.text[:len(e.text)-1]
		}
	case "space":
		e.text = append(e.text, ' ')
	case "tab":
		e.text = append(e.text, '\t')
	default:
		if r := []rune(s); len(r) == 1 {
			e.text = append(e.text, r[0])
		}
	}
	return nil
}

func (e *editorDialog) paste(text string) tea.Cmd {
	e.text = append(e.text, []rune(strings.ReplaceAll(text, "\r\n", "\n"))...)
	return nil
}

func (e *editorDialog) view(width int, st render.Styles) string {
	bar := st.Accent.Render("┃ ")
	var b strings.Builder
	b.WriteString(bar + st.Title.Render(e.title))
	lines := strings.Split(string(e.text), "\n")
	if n := len(lines) - editorRows; n > 0 {
		b.WriteString("\n" + bar + st.Dim.Render(fmt.Sprintf("… %d line(s) above", n)))
		lines = lines[n:]
	}
	for i, l := range lines {
		if i == len(lines)-1 {
			l += "▏"
		}
		b.WriteString("\n" + bar + truncateTo(termtext.Escape(l), width-2))
	}
	b.WriteString("\n" + bar + st.Dim.Render("enter: done · shift+enter: new line · esc: cancel"))
	b.WriteString("\n" + bar + st.Dim.Render(askedBy(e.from)))
	return b.String()
}
