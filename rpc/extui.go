package rpc

import (
	"context"
	"strings"
	"time"

	"github.com/piwasm/pi/host"
)

// ExtensionUI returns the UI that puts extensions' questions (pi_ui_*) to
// the client as extension_ui_request records, in the established
// harness's extension-UI protocol: select, confirm and input wait for the
// extension_ui_response with the same id (or the question's deadline,
// sent as timeout in milliseconds so that the client can show it); editor
// waits the same way, without a timeout field (the established harness
// sends none for it); notify, setStatus, setWidget, setTitle and
// set_editor_text are fire and forget.
func (s *Server) ExtensionUI() host.UI { return extensionUI{s} }

type extensionUI struct{ s *Server }

func (u extensionUI) Ask(ctx context.Context, q host.Question) host.Answer {
	s := u.s
	id := newUIID()
	rec := map[string]any{"type": "extension_ui_request", "id": id, "method": q.Kind}
	if q.Kind == host.AskNotify {
		text := q.Title
		if q.Message != "" {
			if text != "" {
				text += ": "
			}
			text += q.Message
		}
		// Every line names the extension, so that none passes for pi's.
		rec["message"], rec["notifyType"] = "["+q.Extension+"] "+strings.ReplaceAll(text, "\n", "\n["+q.Extension+"] "), q.Level
		s.out.emit(rec)
		return host.Answer{}
	}
	switch q.Kind {
	case host.AskTitle:
		rec["method"], rec["title"] = "setTitle", q.Title
		s.out.emit(rec)
		return host.Answer{}
	case host.AskEditorText:
		rec["method"], rec["text"] = "set_editor_text", q.Message
		s.out.emit(rec)
		return host.Answer{}
	case host.AskWidget:
		rec["method"], rec["widgetKey"] = "setWidget", q.Key
		if q.Placement != "" {
			rec["widgetPlacement"] = q.Placement
		}
		if len(q.Lines) > 0 {
			rec["widgetLines"] = q.Lines
		}
		s.out.emit(rec)
		return host.Answer{}
	}
	if q.Kind == host.AskStatus {
		rec["method"], rec["statusKey"] = "setStatus", q.Key
		if q.Message != "" {
			rec["statusText"] = q.Message
		}
		s.out.emit(rec)
		return host.Answer{}
	}
	rec["title"] = "[" + q.Extension + "] " + q.Title
	switch q.Kind {
	case host.AskSelect:
		rec["options"] = q.Options
	case host.AskConfirm:
		rec["message"] = q.Message
	case host.AskInput:
		if q.Placeholder != "" {
			rec["placeholder"] = q.Placeholder
		}
	case host.AskEditor:
		if q.Prefill != "" {
			rec["prefill"] = q.Prefill
		}
	}
	if dl, ok := ctx.Deadline(); ok && q.Kind != host.AskEditor {
		rec["timeout"] = max(time.Until(dl).Milliseconds(), 1)
	}
	ch := make(chan rpcCommand, 1)
	s.mu.Lock()
	s.pending[id] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, id)
		s.mu.Unlock()
	}()
	s.out.emit(rec)
	select {
	case <-ctx.Done():
		return host.Answer{Cancelled: true}
	case c := <-ch:
		a := host.Answer{Cancelled: c.Cancelled}
		if c.Value != nil {
			a.Value = *c.Value
		} else if q.Kind != host.AskConfirm {
			a.Cancelled = true
		}
		if c.Confirmed != nil {
			a.Confirmed = *c.Confirmed
		}
		return a
	}
}

// extensionError is the established harness's extension_error record.
type extensionError struct {
	Type          string `json:"type"`
	ExtensionPath string `json:"extensionPath"`
	Event         string `json:"event"`
	Error         string `json:"error"`
}

// ExtensionError reports an extension's failure that pi skipped (its
// failure policy is skip) as an extension_error record: the extension's
// package directory, the hook that failed and the cause. It is told in
// addition to the diagnostics, as the failure happens.
func (s *Server) ExtensionError(path, hook, msg string) {
	s.out.emit(extensionError{Type: "extension_error", ExtensionPath: path, Event: hook, Error: msg})
}
