package abi

import "encoding/json"

// The reflection-free codec of the loop hooks and tools (see codec.go):
// a policy hook runs on every tool call, so its decoding must stay cheap
// inside the guest.

// raw consumes any value and returns its bytes (aliasing the input).
func (d *decoder) raw() json.RawMessage {
	d.ws()
	start := d.i
	d.skip()
	if d.err != nil {
		return nil
	}
	return json.RawMessage(d.b[start:d.i])
}

func (d *decoder) parts() []ContentPart {
	more, isNull := d.arrayStart()
	if isNull {
		return nil
	}
	out := []ContentPart{}
	for ; more; more = d.arrayNext() {
		var p ContentPart
		for more := d.objectStart(); more; more = d.objectNext() {
			switch string(d.key()) {
			case "type":
				p.Type = d.strOrNull()
			case "text":
				p.Text = d.strOrNull()
			case "data":
				p.Data = d.strOrNull()
			case "mimeType":
				p.MimeType = d.strOrNull()
			default:
				d.skip()
			}
		}
		out = append(out, p)
	}
	return out
}

// DecodeJSON decodes a ToolCallEvent. Input aliases b.
func (ev *ToolCallEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "toolCallId":
			ev.ToolCallID = d.strOrNull()
		case "toolName":
			ev.ToolName = d.strOrNull()
		case "source":
			ev.Source = d.strOrNull()
		case "input":
			ev.Input = d.raw()
		case "cwd":
			ev.Cwd = d.strOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// DecodeJSON decodes a ToolResultEvent. Input aliases b.
func (ev *ToolResultEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "toolCallId":
			ev.ToolCallID = d.strOrNull()
		case "toolName":
			ev.ToolName = d.strOrNull()
		case "source":
			ev.Source = d.strOrNull()
		case "input":
			ev.Input = d.raw()
		case "content":
			ev.Content = d.parts()
		case "isError":
			ev.IsError = d.boolOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// DecodeJSON decodes a ToolEvent. Input aliases b.
func (ev *ToolEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "toolCallId":
			ev.ToolCallID = d.strOrNull()
		case "toolName":
			ev.ToolName = d.strOrNull()
		case "input":
			ev.Input = d.raw()
		case "cwd":
			ev.Cwd = d.strOrNull()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// DecodeJSON decodes a TurnEndEvent. The messages alias b.
func (ev *TurnEndEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "turnIndex":
			ev.TurnIndex = d.intOrNull()
		case "message":
			ev.Message = d.raw()
		case "toolResults":
			ev.ToolResults = d.raws()
		default:
			d.skip()
		}
	}
	return d.finish()
}

// DecodeJSON decodes an AgentEndEvent. The messages alias b.
func (ev *AgentEndEvent) DecodeJSON(b []byte) error {
	d := decoder{b: b}
	for more := d.objectStart(); more; more = d.objectNext() {
		switch string(d.key()) {
		case "messages":
			ev.Messages = d.raws()
		default:
			d.skip()
		}
	}
	return d.finish()
}

func (d *decoder) raws() []json.RawMessage {
	more, isNull := d.arrayStart()
	if isNull {
		return nil
	}
	out := []json.RawMessage{}
	for ; more; more = d.arrayNext() {
		out = append(out, d.raw())
	}
	return out
}

func appendParts(w *objWriter, k string, parts []ContentPart, always bool) {
	if parts == nil && !always {
		return
	}
	w.key(k)
	w.b = append(w.b, '[')
	for i, p := range parts {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		pw := objWriter{b: w.b}
		pw.str("type", p.Type, false)
		pw.str("text", p.Text, true)
		pw.str("data", p.Data, true)
		pw.str("mimeType", p.MimeType, true)
		w.b, _ = pw.done()
	}
	w.b = append(w.b, ']')
}

// AppendJSON appends r as JSON. Input must be valid JSON when set.
func (r ToolCallResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	w.boolean("block", r.Block)
	w.str("reason", r.Reason, true)
	if len(r.Input) > 0 {
		w.key("input")
		w.b = append(w.b, r.Input...)
	}
	return w.done()
}

// AppendJSON appends p as JSON.
func (p ToolResultPatch) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	appendParts(&w, "content", p.Content, false)
	if p.IsError != nil {
		w.key("isError")
		if *p.IsError {
			w.b = append(w.b, "true"...)
		} else {
			w.b = append(w.b, "false"...)
		}
	}
	return w.done()
}

// AppendJSON appends r as JSON.
func (r ToolResult) AppendJSON(b []byte) ([]byte, error) {
	w := objWriter{b: b}
	appendParts(&w, "content", r.Content, true)
	w.boolean("isError", r.IsError)
	return w.done()
}

// Observed is the result of the observe-only hooks (turn_end, agent_end):
// an empty object.
type Observed struct{}

// AppendJSON appends {}.
func (Observed) AppendJSON(b []byte) ([]byte, error) { return append(b, '{', '}'), nil }

// StringField returns the string value of key in the JSON object raw, and
// whether there is one. It decodes only that value (other values are
// skipped without being built), which inside a guest is far cheaper than
// decoding the object: a tool_call policy usually reads one argument.
func StringField(raw []byte, key string) (string, bool) {
	d := decoder{b: raw}
	for more := d.objectStart(); more; more = d.objectNext() {
		if string(d.key()) == key && d.peek() == '"' {
			s := d.str()
			return s, d.err == nil
		}
		d.skip()
	}
	return "", false
}

// FieldValue returns the JSON text of key's value in the JSON object raw,
// and whether there is one. Like StringField it reads up to the key and
// takes its first occurrence (the host's JSON objects never repeat a key);
// a value that is not valid JSON is not returned. The result aliases raw.
func FieldValue(raw []byte, key string) ([]byte, bool) {
	d := decoder{b: raw}
	for more := d.objectStart(); more; more = d.objectNext() {
		if string(d.key()) == key {
			v := d.raw()
			return v, d.err == nil
		}
		d.skip()
	}
	return nil, false
}

// NumberField returns the number value of key in the JSON object raw, and
// whether there is one (false when the key is absent, null or not a
// number).
func NumberField(raw []byte, key string) (float64, bool) {
	v, ok := FieldValue(raw, key)
	if !ok {
		return 0, false
	}
	d := decoder{b: v}
	if c := d.peek(); c != '-' && (c < '0' || c > '9') {
		return 0, false
	}
	f := d.num()
	return f, d.finish() == nil
}
