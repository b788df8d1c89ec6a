package provider

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A scripted loopback model: a reply described once and rendered as either
// API's event stream, with the tool-call arguments cut into fragments of a
// chosen size (mid-token, mid-escape, mid-UTF-8) and, on OpenAI, several
// calls interleaved fragment by fragment.

type scriptCall struct{ id, name, args string }

type scriptReply struct {
	thinking, signature string
	text                string
	calls               []scriptCall
	stop                string // normalised: stop, length, toolUse
	usage               Usage
}

// pieces cuts s into runs of about n bytes (n < 1 means whole), never
// inside a UTF-8 sequence: a fragment travels as a JSON string, so it holds
// whole characters, but it may end inside an escape or a token of the JSON
// it is a piece of.
func pieces(s string, n int) []string {
	if n < 1 || len(s) <= n {
		return []string{s}
	}
	var out []string
	for len(s) > n {
		cut := n
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func openAIScript(r scriptReply, frag int) string {
	var b strings.Builder
	chunk := func(delta string, extra string) {
		fmt.Fprintf(&b, "data: {\"id\":\"c1\",\"model\":\"gpt-x-2026\",\"choices\":[{\"index\":0,\"delta\":{%s}%s}]}\n\n", delta, extra)
	}
	chunk(`"role":"assistant","content":null`, `,"finish_reason":null`)
	for _, p := range pieces(r.thinking, frag) {
		if p != "" {
			chunk(`"reasoning_content":`+jsonString(p), "")
		}
	}
	for _, p := range pieces(r.text, frag) {
		if p != "" {
			chunk(`"content":`+jsonString(p), "")
		}
	}
	frags := make([][]string, len(r.calls))
	rounds := 0
	for i, c := range r.calls {
		frags[i] = pieces(c.args, frag)
		rounds = max(rounds, len(frags[i]))
	}
	for k := range rounds {
		for i, c := range r.calls {
			if k >= len(frags[i]) {
				continue
			}
			if k == 0 {
				chunk(fmt.Sprintf(`"tool_calls":[{"index":%d,"id":%s,"type":"function","function":{"name":%s,"arguments":%s}}]`, i, jsonString(c.id), jsonString(c.name), jsonString(frags[i][k])), "")
			} else {
				chunk(fmt.Sprintf(`"tool_calls":[{"index":%d,"function":{"arguments":%s}}]`, i, jsonString(frags[i][k])), "")
			}
		}
	}
	finish := map[string]string{StopReasonStop: "stop", StopReasonLength: "length", StopReasonToolUse: "tool_calls"}[r.stop]
	chunk("", fmt.Sprintf(`,"finish_reason":%q`, finish))
	u := r.usage
	fmt.Fprintf(&b, "data: {\"id\":\"c1\",\"model\":\"gpt-x-2026\",\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":%d,\"prompt_tokens_details\":{\"cached_tokens\":%d},\"completion_tokens_details\":{\"reasoning_tokens\":%d}}}\n\n", u.InputTokens+u.CacheReadTokens, u.OutputTokens, u.CacheReadTokens, u.ReasoningTokens)
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func anthropicScript(r scriptReply, frag int) string {
	var b strings.Builder
	ev := func(name, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, data) }
	u := r.usage
	ev("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-x","usage":{"input_tokens":%d,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d,"output_tokens":1}}}`, u.InputTokens, u.CacheWriteTokens, u.CacheReadTokens))
	idx := 0
	if r.thinking != "" {
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"thinking","thinking":"","signature":""}}`, idx))
		for _, p := range pieces(r.thinking, frag) {
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":%s}}`, idx, jsonString(p)))
		}
		ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"signature_delta","signature":%s}}`, idx, jsonString(r.signature)))
		ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, idx))
		idx++
	}
	b.WriteString("event: ping\ndata: {\"type\": \"ping\"}\n\n")
	if r.text != "" {
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, idx))
		for _, p := range pieces(r.text, frag) {
			ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, idx, jsonString(p)))
		}
		ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, idx))
		idx++
	}
	for _, c := range r.calls {
		ev("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`, idx, jsonString(c.id), jsonString(c.name)))
		for _, p := range pieces(c.args, frag) {
			if p != "" {
				ev("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, idx, jsonString(p)))
			}
		}
		ev("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, idx))
		idx++
	}
	stop := map[string]string{StopReasonStop: "end_turn", StopReasonLength: "max_tokens", StopReasonToolUse: "tool_use"}[r.stop]
	ev("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":%d,"output_tokens_details":{"thinking_tokens":%d}}}`, stop, u.OutputTokens, u.ReasoningTokens))
	ev("message_stop", `{"type":"message_stop"}`)
	return b.String()
}
