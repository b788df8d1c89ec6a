package ui

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/piwasm/pi/host"
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
	if question.Kind == host.AskNotify {
		send(noticeMsg(notifyText(question)))
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
	return fmt.Sprintf("%s [%s] %s", mark, q.Extension, text)
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
	d := &dialog{title: title, body: q.Message, owner: a.reply}
	switch q.Kind {
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
