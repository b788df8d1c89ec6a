package abi

import (
	"encoding/json"
	"strconv"
)

// The reflection-free codec of the session, compaction, completion,
// context and provider-request hooks and of the UI requests (see
// codec.go). These hooks run rarely, so encoding/json's time in the guest
// would not matter; its size does: a guest that links encoding/json (and
// the reflect and fmt it brings) carries about 1.4 MiB more WebAssembly,
// which every fresh process hashes, decodes, maps and initialises even when
// the guest only answers before_agent_start. The SDK exports every hook, so
// one hook decoded with encoding/json put it into every guest.

// rawCopy is raw, copied out of the input: these events used to be decoded
// by encoding/json, which copies, and handlers may keep what they get.
func (d *decoder) rawCopy() json.RawMessage {
	r := d.raw()
	if r == nil {
		return nil
	}
	return append(json.RawMessage(nil), r...)
}

func (d *decoder) rawCopies() []json.RawMessage {
	more, isNull := d.arrayStart()
	if isNull {
		return nil
	}
	out := []json.RawMessage{}
	for ; more; more = d.arrayNext() {
		out = append(out, d.rawCopy())
	}
	return out
}

// appendRaw appends raw after checking that it is one JSON value, as
// encoding/json does for a json.RawMessage (an empty one is null).
func appendRaw(w *objWriter, raw []byte) {
	if len(raw) == 0 {
		w.b = append(w.b, "null"...)
		return
	}
	d := decoder{b: raw}
	d.skip()
	if err := d.finish(); err != nil {
		if w.err == nil {
			w.err = err
		}
		return
	}
	w.b = append(w.b, raw...)
}

func appendRaws(w *objWriter, k string, raws []json.RawMessage) {
	w.key(k)
	w.b = append(w.b, '[')
	for i, r := range raws {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		appendRaw(w, r)
	}
	w.b = append(w.b, ']')
}

func (w *objWriter) integer(k string, v int, omitEmpty bool) {
	if omitEmpty && v == 0 {
		return
	}
	w.key(k)
	w.b = strconv.AppendInt(w.b, int64(v), 10)
}

// DecodeJSON decodes a SessionStartEvent.
func (ev *SessionStartEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "reason":
			ev.Reason = d.strOrNull()
		case "previousSessionFile":
			ev.PreviousSessionFile = d.strOrNull()
		case "sessionFile":
			ev.SessionFile = d.strOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// sessionChange decodes the fields session_shutdown and
// session_before_switch share.
func sessionChange(b []byte, reason, target, file *string) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "reason":
			*reason = d.strOrNull()
		case "targetSessionFile":
			*target = d.strOrNull()
		case "sessionFile":
			*file = d.strOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// DecodeJSON decodes a SessionShutdownEvent.
func (ev *SessionShutdownEvent) DecodeJSON(b []byte) error {
	return sessionChange(b, &ev.Reason, &ev.TargetSessionFile, &ev.SessionFile)
}

// DecodeJSON decodes a SessionBeforeSwitchEvent.
func (ev *SessionBeforeSwitchEvent) DecodeJSON(b []byte) error {
	return sessionChange(b, &ev.Reason, &ev.TargetSessionFile, &ev.SessionFile)
}

// DecodeJSON decodes a SessionBeforeForkEvent.
func (ev *SessionBeforeForkEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "entryId":
			ev.EntryID = d.strOrNull()
		case "position":
			ev.Position = d.strOrNull()
		case "sessionFile":
			ev.SessionFile = d.strOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// AppendJSON appends r as JSON.
func (r SessionCancelResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	w.boolean("cancel", r.Cancel)
	return w.done()
}

// AppendJSON appends r as JSON.
func (r SessionBeforeForkResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	w.boolean("cancel", r.Cancel)
	w.boolean("skipConversationRestore", r.SkipConversationRestore)
	return w.done()
}

// DecodeJSON decodes a SessionBeforeCompactEvent; the messages are copies.
func (ev *SessionBeforeCompactEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "preparation":
			p := &ev.Preparation
			for more := d.objectStart(); more; more = d.objectNext() {
				switch string(d.key()) {
				case "firstKeptEntryId":
					p.FirstKeptEntryID = d.strOrNull()
				case "messagesToSummarize":
					p.MessagesToSummarize = d.rawCopies()
				case "turnPrefixMessages":
					p.TurnPrefixMessages = d.rawCopies()
				case "isSplitTurn":
					p.IsSplitTurn = d.boolOrNull()
				case "tokensBefore":
					p.TokensBefore = d.intOrNull()
				case "previousSummary":
					p.PreviousSummary = nil
					if !d.null() {
						s := d.str()
						p.PreviousSummary = &s
					}
				case "readFiles":
					p.ReadFiles = d.strings()
				case "modifiedFiles":
					p.ModifiedFiles = d.strings()
				default:
					d.skip()
				}
			}
		case "customInstructions":
			ev.CustomInstructions = d.strOrNull()
		case "reason":
			ev.Reason = d.strOrNull()
		case "willRetry":
			ev.WillRetry = d.boolOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// AppendJSON appends r as JSON.
func (r SessionBeforeCompactResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	w.boolean("cancel", r.Cancel)
	if c := r.Compaction; c != nil {
		w.key("compaction")
		cw := objWriter{b: w.b}
		cw.str("summary", c.Summary, false)
		cw.str("firstKeptEntryId", c.FirstKeptEntryID, true)
		cw.integer("tokensBefore", c.TokensBefore, true)
		w.b, _ = cw.done()
	}
	return w.done()
}

// DecodeJSON decodes a CommandCompleteEvent.
func (ev *CommandCompleteEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "name":
			ev.Name = d.strOrNull()
		case "prefix":
			ev.Prefix = d.strOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// AppendJSON appends r as JSON.
func (r CommandCompleteResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	if len(r.Items) > 0 {
		w.key("items")
		w.b = append(w.b, '[')
		for i, it := range r.Items {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			iw := objWriter{b: w.b}
			iw.str("value", it.Value, false)
			iw.str("label", it.Label, true)
			iw.str("description", it.Description, true)
			w.b, _ = iw.done()
		}
		w.b = append(w.b, ']')
	}
	return w.done()
}

// DecodeJSON decodes a ContextEvent; the messages are copies.
func (ev *ContextEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "messages":
			ev.Messages = d.rawCopies()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// AppendJSON appends r as JSON; every message must be one JSON value.
func (r ContextResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	if len(r.Messages) > 0 {
		appendRaws(&w, "messages", r.Messages)
	}
	return w.done()
}

// DecodeJSON decodes a BeforeProviderRequestEvent; the body is a copy.
func (ev *BeforeProviderRequestEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "provider":
			ev.Provider = d.strOrNull()
		case "api":
			ev.API = d.strOrNull()
		case "model":
			ev.Model = d.strOrNull()
		case "body":
			ev.Body = d.rawCopy()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// AppendJSON appends r as JSON; the body must be one JSON value.
func (r BeforeProviderRequestResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	if len(r.Body) > 0 {
		w.key("body")
		appendRaw(&w, r.Body)
	}
	return w.done()
}

// AppendJSON appends r as JSON (the request of the pi_ui_* host
// functions).
func (r UIRequest) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	w.str("title", r.Title, true)
	w.str("message", r.Message, true)
	if len(r.Options) > 0 {
		w.key("options")
		w.b = appendStrings(w.b, r.Options)
	}
	w.str("placeholder", r.Placeholder, true)
	w.str("level", r.Level, true)
	w.str("prefill", r.Prefill, true)
	w.str("key", r.Key, true)
	w.str("text", r.Text, true)
	if len(r.Lines) > 0 {
		w.key("lines")
		w.b = appendStrings(w.b, r.Lines)
	}
	w.str("placement", r.Placement, true)
	w.integer("timeoutMs", r.TimeoutMs, true)
	return w.done()
}
