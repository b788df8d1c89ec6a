package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// object is a JSON object that keeps its members' order, so that adding
// fields to a body built elsewhere changes nothing else in its bytes.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseObject(data []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := &object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(k, v)
	}
	return o, nil
}

// set replaces k in place, or appends it.
func (o *object) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
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
	if _, ok := o.vals[k]; ok {
		o.vals[k] = v
		return
	}
	o.vals[k] = v
	for i, key := range o.keys {
		if key == after {
			o.keys = append(o.keys[:i+1], append([]string{k}, o.keys[i+1:]...)...)
			return
		}
	}
	o.keys = append(o.keys, k)
}

func (o *object) remove(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			return
		}
	}
}

func (o *object) bytes() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := encodeJSON(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// applyOpenAICompat adds to a chat completions body what the route's
// models.json settings ask for, as the other harness shapes the request:
// stream_options dropped when the server does not take usage in streaming,
// "store": false where it is supported, the developer role for a reasoning
// model's system messages, the thinking fields of compat.thinkingFormat,
// the reasoning budget field, OpenRouter routing, and finally
// samplingParams (which win over any field of the same name). A route
// without Compat (built by hand, not from models.json) is left alone.
func applyOpenAICompat(r Route, body []byte) ([]byte, error) {
	c := r.Compat
	if c == nil && len(r.SamplingParams) == 0 {
		return body, nil
	}
	o, err := parseObject(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.label(), err)
	}
	if c != nil {
		if !c.UsageInStreaming {
			o.remove("stream_options")
		}
		if c.Store {
			after := "stream"
			if _, ok := o.vals["stream_options"]; ok {
				after = "stream_options"
			}
			o.insertAfter(after, "store", json.RawMessage("false"))
		}
		if r.Reasoning && c.DeveloperRole {
			if err := developerRole(o); err != nil {
				return nil, fmt.Errorf("%s: %w", r.label(), err)
			}
		}
		if err := openAIThinking(r, o); err != nil {
			return nil, err
		}
		if len(c.OpenRouterRouting) > 0 && !bytes.Equal(bytes.TrimSpace(c.OpenRouterRouting), []byte("{}")) {
			o.set("provider", c.OpenRouterRouting)
		}
	}
	for _, k := range sortedKeys(r.SamplingParams) {
		o.set(k, jsNumber(r.SamplingParams[k]))
	}
	return o.bytes(), nil
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

// developerRole renames the system messages of a body's "messages" (or a
// Responses "input") to "developer".
func developerRole(o *object) error {
	for _, field := range []string{"messages", "input"} {
		raw, ok := o.vals[field]
		if !ok {
			continue
		}
		var msgs []json.RawMessage
		if err := json.Unmarshal(raw, &msgs); err != nil {
			return err
		}
		for i, m := range msgs {
			mo, err := parseObject(m)
			if err != nil {
				continue // not a message object (a Responses item): leave it
			}
			if string(mo.vals["role"]) == `"system"` {
				mo.set("role", json.RawMessage(`"developer"`))
				msgs[i] = mo.bytes()
			}
		}
		b, err := encodeJSON(msgs)
		if err != nil {
			return err
		}
		o.set(field, b)
	}
	return nil
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
			if v, ok := o.vals[k]; ok {
				if n, err := strconv.Atoi(string(v)); err == nil {
					ceiling = n
					break
				}
			}
		}
		if budget := min(thinkingBudget(r.Thinking), max(0, ceiling-minAnswerTokens)); budget > 0 {
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
func applyAnthropicThinking(r Route, req Request, body []byte) ([]byte, error) {
	if !r.Reasoning {
		return body, nil
	}
	o, err := parseObject(body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.label(), err)
	}
	if r.Thinking == "" {
		o.set("thinking", json.RawMessage(`{"type":"disabled"}`))
		return o.bytes(), nil
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
		return o.bytes(), nil
	}
	budget := thinkingBudget(r.Thinking)
	modelMax := r.MaxTokens
	if modelMax <= 0 {
		modelMax = DefaultMaxTokens
	}
	// Without a cap from the caller the body already carries the model's
	// cap fitted to the context window; a caller's cap gets the budget on
	// top, up to the model's cap.
	maxTokens, _ := strconv.Atoi(string(o.vals["max_tokens"]))
	if req.MaxTokens > 0 || maxTokens <= 0 {
		maxTokens = min(max(req.MaxTokens, 0)+budget, modelMax)
	}
	budget = min(budget, max(0, maxTokens-minAnswerTokens))
	if budget <= 0 {
		budget = 1024
	}
	o.set("max_tokens", json.RawMessage(strconv.Itoa(maxTokens)))
	o.set("thinking", json.RawMessage(`{"type":"enabled","budget_tokens":`+strconv.Itoa(budget)+`,"display":"summarized"}`))
	return o.bytes(), nil
}
