package provider

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
)

// object is a request body under construction: its members in wire order,
// so the compat settings can add, replace and drop fields the way the other
// harness does (a replaced field keeps its place, a new one goes last)
// before the body is written once. A member's value is raw JSON, or for the
// message list the already encoded elements, which bytes copies straight
// into the body: the history is never encoded twice, nor decoded again.
type object struct {
	members []member
	raw     []byte // a body built whole elsewhere; members then unused
}

type member struct {
	key  string
	val  json.RawMessage
	list [][]byte // when set, val is ignored and the value is [list[0],list[1],…]
}

func (o *object) find(k string) int {
	for i := range o.members {
		if o.members[i].key == k {
			return i
		}
	}
	return -1
}

// get returns k's raw value (nil for a list member or a missing key).
func (o *object) get(k string) (json.RawMessage, bool) {
	if i := o.find(k); i >= 0 {
		return o.members[i].val, true
	}
	return nil, false
}

// set replaces k in place, or appends it.
func (o *object) set(k string, v json.RawMessage) {
	if i := o.find(k); i >= 0 {
		o.members[i] = member{key: k, val: v}
		return
	}
	o.members = append(o.members, member{key: k, val: v})
}

// setList sets k to the JSON array of the encoded elements.
func (o *object) setList(k string, elems [][]byte) {
	if i := o.find(k); i >= 0 {
		o.members[i] = member{key: k, list: elems}
		return
	}
	o.members = append(o.members, member{key: k, list: elems})
}

// setAny sets k to v encoded as JSON.
func (o *object) setAny(k string, v any) error {
	b, err := encodeJSON(v)
	if err != nil {
		return err
	}
	o.set(k, b)
	return nil
}

// insertAfter puts k right after the member named after (or at the end).
func (o *object) insertAfter(after, k string, v json.RawMessage) {
	if i := o.find(k); i >= 0 {
		o.members[i].val, o.members[i].list = v, nil
		return
	}
	i := o.find(after)
	if i < 0 {
		o.members = append(o.members, member{key: k, val: v})
		return
	}
	o.members = append(o.members, member{})
	copy(o.members[i+2:], o.members[i+1:])
	o.members[i+1] = member{key: k, val: v}
}

func (o *object) remove(k string) {
	if i := o.find(k); i >= 0 {
		o.members = append(o.members[:i], o.members[i+1:]...)
	}
}

// size is the length of the body in bytes.
func (o *object) size() int {
	if o.raw != nil {
		return len(o.raw)
	}
	n := 2
	for i, m := range o.members {
		if i > 0 {
			n++
		}
		n += glueLen(m.key) - 1 // the key and its colon, less the separator
		if m.list == nil {
			n += len(m.val)
			continue
		}
		n += 2 + max(len(m.list)-1, 0)
		for _, e := range m.list {
			n += len(e)
		}
	}
	return n
}

// glue is what comes before member i's value: a comma (or the opening
// brace) and the quoted key with its colon.
func (o *object) glue(i int) []byte { return o.glueRoom(i, 0) }

// glueRoom is glue with room for extra bytes after it (what the caller
// appends: a list's '[' or a short value), so appending them does not
// allocate again.
func (o *object) glueRoom(i, extra int) []byte {
	key := o.members[i].key
	b := make([]byte, 1, len(key)+4+extra)
	b[0] = ','
	if i == 0 {
		b[0] = '{'
	}
	b = appendJSONString(b, key)
	return append(b, ':')
}

// maxGluedValue is the longest value copied into the piece of its key (one
// piece, one write where there is no writev, for "model", "stream" and
// the like); a longer one is a piece of its own.
const maxGluedValue = 256

// glueLen is the length of a member's glue, without building it.
func glueLen(key string) int {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return 2 + len(appendJSONString(nil, key))
		}
	}
	return len(key) + 4 // separator, quotes, colon
}

// reader reads the body without writing it out first: the encoded
// messages are read where they are kept (immutable, in their Memos), so a
// request at turn 1,000 neither copies nor allocates the history again.
func (o *object) reader() io.Reader {
	if o.raw != nil {
		return bytes.NewReader(o.raw)
	}
	return &objectReader{o: o}
}

// readCloser is reader as a request body. An objectReader is its own
// ReadCloser, so net/http does not wrap it in a NopCloser that would hide
// it from WrapDial's connections.
func (o *object) readCloser() io.ReadCloser {
	if r, ok := o.reader().(io.ReadCloser); ok {
		return r
	}
	return io.NopCloser(o.reader())
}

// objectReader walks an object's pieces in order.
type objectReader struct {
	o      *object
	cur    []byte
	val    []byte // member m-1's value, the piece after its glue
	m      int    // members started
	inList bool   // inside member m-1's list
	j      int    // elements of that list read
	sep    bool   // the comma before element j was read
	done   bool
}

var (
	comma     = []byte{','}
	closeList = []byte{']'}
	closeObj  = []byte{'}'}
)

// next returns the next piece, nil at the end.
func (r *objectReader) next() []byte {
	o := r.o
	if r.val != nil {
		// A long value is its own piece, read where it is kept: copying
		// it after its key cost a request a copy of the tool
		// declarations.
		v := r.val
		r.val = nil
		return v
	}
	if r.inList {
		list := o.members[r.m-1].list
		switch {
		case r.j >= len(list):
			r.inList = false
			return closeList
		case r.j > 0 && !r.sep:
			r.sep = true
			return comma
		}
		r.sep = false
		r.j++
		return list[r.j-1]
	}
	if r.m < len(o.members) {
		r.m++
		m := o.members[r.m-1]
		if m.list != nil {
			r.inList, r.j, r.sep = true, 0, false
			return append(o.glueRoom(r.m-1, 1), '[')
		}
		if len(m.val) > maxGluedValue {
			r.val = m.val
			return o.glue(r.m - 1)
		}
		return append(o.glueRoom(r.m-1, len(m.val)), m.val...)
	}
	if !r.done {
		r.done = true
		if len(o.members) == 0 {
			return []byte("{}")
		}
		return closeObj
	}
	return nil
}

// Close does nothing: the pieces are the body's, kept in their Memos.
func (r *objectReader) Close() error { return nil }

func (r *objectReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		for len(r.cur) == 0 {
			if r.cur = r.next(); r.cur == nil {
				if n == 0 {
					return 0, io.EOF
				}
				return n, nil
			}
		}
		c := copy(p[n:], r.cur)
		r.cur = r.cur[c:]
		n += c
	}
	return n, nil
}

// bytes writes the body: one allocation of the exact size.
func (o *object) bytes() []byte {
	if o.raw != nil {
		return o.raw
	}
	n := 2
	for _, m := range o.members {
		n += len(m.key) + 8 + len(m.val)
		if m.list != nil {
			n += 2 + len(m.list)
			for _, e := range m.list {
				n += len(e)
			}
		}
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i, m := range o.members {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, m.key)
		b = append(b, ':')
		if m.list == nil {
			b = append(b, m.val...)
			continue
		}
		b = append(b, '[')
		for j, e := range m.list {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, e...)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendJSONString appends s as a JSON string, as encodeJSON writes it.
func appendJSONString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	e, _ := encodeJSON(s)
	return append(b, e...)
}

// applyOpenAICompat adds to a chat completions body what the route's
// models.json settings ask for, as the other harness shapes the request:
// stream_options dropped when the server does not take usage in streaming,
// "store": false where it is supported, the thinking fields of
// compat.thinkingFormat, the reasoning budget field, OpenRouter routing, and
// finally samplingParams (which win over any field of the same name). The
// developer role for a reasoning model's system messages is chosen when the
// messages are encoded (see openAIDeveloperRole). A route without Compat
// (built by hand, not from models.json) is left alone.
func applyOpenAICompat(r Route, o *object) error {
	c := r.Compat
	if c != nil {
		if !c.UsageInStreaming {
			o.remove("stream_options")
		}
		if c.Store {
			after := "stream"
			if o.find("stream_options") >= 0 {
				after = "stream_options"
			}
			o.insertAfter(after, "store", json.RawMessage("false"))
		}
		if err := openAIThinking(r, o); err != nil {
			return err
		}
		if len(c.OpenRouterRouting) > 0 && !bytes.Equal(bytes.TrimSpace(c.OpenRouterRouting), []byte("{}")) {
			o.set("provider", c.OpenRouterRouting)
		}
	}
	for _, k := range sortedKeys(r.SamplingParams) {
		o.set(k, jsNumber(r.SamplingParams[k]))
	}
	return nil
}

// openAIDeveloperRole reports whether a chat completions body sends its
// system messages with the "developer" role: a reasoning model on a server
// whose compat allows it.
func openAIDeveloperRole(r Route) bool {
	return r.Compat != nil && r.Reasoning && r.Compat.DeveloperRole
}

// jsNumber writes a JSON number as JavaScript's JSON.stringify writes it
// (1.0 becomes 1), so a samplingParams value goes out byte for byte as the
// other harness sends it. Anything else is returned as it is.
func jsNumber(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || !(t[0] == '-' || (t[0] >= '0' && t[0] <= '9')) {
		return raw
	}
	f, err := strconv.ParseFloat(string(t), 64)
	if err != nil {
		return raw
	}
	if a := math.Abs(f); f != 0 && (a < 1e-6 || a >= 1e21) {
		return raw
	}
	return json.RawMessage(strconv.FormatFloat(f, 'f', -1, 64))
}

// openAIThinking sets the thinking fields of a chat completions body.
func openAIThinking(r Route, o *object) error {
	c := r.Compat
	if !r.Reasoning {
		return nil
	}
	on := r.Thinking != ""
	effort, effortOK := "", false
	if on {
		effort, effortOK = r.effortFor(r.Thinking)
	}
	offVal, offSet, offNull := r.offValue()
	str := func(s string) json.RawMessage { b, _ := encodeJSON(s); return b }
	switch c.ThinkingFormat {
	case "zai":
		if on {
			o.set("thinking", json.RawMessage(`{"type":"enabled","clear_thinking":false}`))
		} else {
			o.set("thinking", json.RawMessage(`{"type":"disabled"}`))
		}
		if on && c.ReasoningEffort && effortOK {
			o.set("reasoning_effort", str(effort))
		}
	case "qwen":
		o.set("enable_thinking", json.RawMessage(strconv.FormatBool(on)))
		if on && c.ReasoningEffort && effortOK {
			o.set("reasoning_effort", str(effort))
		}
	case "qwen-chat-template":
		o.set("chat_template_kwargs", json.RawMessage(`{"enable_thinking":`+strconv.FormatBool(on)+`,"preserve_thinking":true}`))
	case "deepseek":
		if on {
			o.set("thinking", json.RawMessage(`{"type":"enabled"}`))
		} else if !offNull {
			o.set("thinking", json.RawMessage(`{"type":"disabled"}`))
		}
		if on && c.ReasoningEffort && effortOK {
			o.set("reasoning_effort", str(effort))
		}
	case "openrouter":
		switch {
		case on && effortOK:
			o.set("reasoning", json.RawMessage(`{"effort":`+string(str(effort))+`}`))
		case !on && !offNull:
			o.set("reasoning", json.RawMessage(`{"effort":`+string(str(firstNonEmpty(offVal, "none")))+`}`))
		}
	case "ant-ling":
		if on {
			if v, mapped := r.ThinkingLevels[r.Thinking]; mapped && v != nil {
				o.set("reasoning", json.RawMessage(`{"effort":`+string(str(*v))+`}`))
			}
		}
	case "together":
		o.set("reasoning", json.RawMessage(`{"enabled":`+strconv.FormatBool(on)+`}`))
		if on && c.ReasoningEffort && effortOK {
			o.set("reasoning_effort", str(effort))
		}
	case "string-thinking":
		switch {
		case on && effortOK:
			o.set("thinking", str(effort))
		case !on && !offNull:
			o.set("thinking", str(firstNonEmpty(offVal, "none")))
		}
	default: // "openai"
		switch {
		case on && c.ReasoningEffort && effortOK:
			o.set("reasoning_effort", str(effort))
		case !on && c.ReasoningEffort && offSet:
			o.set("reasoning_effort", str(offVal))
		}
	}
	if c.ThinkingBudgetField != "" && on {
		ceiling := r.MaxTokens
		for _, k := range []string{"max_tokens", "max_completion_tokens"} {
			if v, ok := o.get(k); ok {
				if n, err := strconv.Atoi(string(v)); err == nil {
					ceiling = n
					break
				}
			}
		}
		if budget := min(r.thinkingBudget(r.Thinking), max(0, ceiling-minAnswerTokens)); budget > 0 {
			o.set(c.ThinkingBudgetField, json.RawMessage(strconv.Itoa(budget)))
		}
	}
	return nil
}

// applyAnthropicThinking adds thinking to a messages body for a reasoning
// model, as the other harness asks for it: a token budget by level (room
// made in max_tokens for it, up to the model's cap), or with
// compat.forceAdaptiveThinking, adaptive thinking with an effort; a
// reasoning model at "off" gets thinking disabled. Routes that are not
// reasoning models are left alone.
func applyAnthropicThinking(r Route, req Request, o *object) {
	if !r.Reasoning {
		return
	}
	if r.Thinking == "" {
		o.set("thinking", json.RawMessage(`{"type":"disabled"}`))
		return
	}
	if r.Compat != nil && r.Compat.ForceAdaptiveThinking {
		effort := "high"
		if v, mapped := r.ThinkingLevels[r.Thinking]; mapped && v != nil {
			effort = *v
		} else {
			switch r.Thinking {
			case "minimal", "low":
				effort = "low"
			case "medium":
				effort = "medium"
			}
		}
		o.set("thinking", json.RawMessage(`{"type":"adaptive","display":"summarized"}`))
		b, _ := encodeJSON(effort)
		o.set("output_config", json.RawMessage(`{"effort":`+string(b)+`}`))
		return
	}
	budget := r.thinkingBudget(r.Thinking)
	modelMax := r.MaxTokens
	if modelMax <= 0 {
		modelMax = DefaultMaxTokens
	}
	// Without a cap from the caller the body already carries the model's
	// cap fitted to the context window; a caller's cap gets the budget on
	// top, up to the model's cap.
	mt, _ := o.get("max_tokens")
	maxTokens, _ := strconv.Atoi(string(mt))
	if req.MaxTokens > 0 || maxTokens <= 0 {
		maxTokens = min(max(req.MaxTokens, 0)+budget, modelMax)
	}
	budget = min(budget, max(0, maxTokens-minAnswerTokens))
	if budget <= 0 {
		budget = 1024
	}
	o.set("max_tokens", json.RawMessage(strconv.Itoa(maxTokens)))
	o.set("thinking", json.RawMessage(`{"type":"enabled","budget_tokens":`+strconv.Itoa(budget)+`,"display":"summarized"}`))
}
