package provider

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

// decode runs a stream body through the decoder of api without HTTP.
func decode(api string, r io.Reader, onEvent func(StreamEvent)) (Response, error) {
	out := newAssembler(onEvent)
	var sink eventSink = newOpenAIStream("fuzz", out)
	if api == APIAnthropicMessages {
		sink = &anthropicStream{label: "fuzz", out: out}
	}
	sse := newSSEReader(r)
	for {
		ev, err := sse.Next()
		if err == io.EOF {
			return out.result(), sink.end()
		}
		if err != nil {
			return out.result(), err
		}
		done, err := sink.event(ev)
		if err != nil || done {
			return out.result(), err
		}
	}
}

// FuzzToolCallFragments checks that how the arguments of two calls are cut
// into fragments, and how the stream is cut into reads, never changes the
// calls assembled, in either API; that every call ends with a JSON object;
// and that the events add up to the reply.
func FuzzToolCallFragments(f *testing.F) {
	f.Add(`{"path":"a.go"}`, `{"command":"echo \"é ✓\"\n"}`, "thinking", uint8(3), []byte{1, 5, 9})
	f.Add(``, `[1]`, "", uint8(1), []byte{0})
	f.Add(`{"a":`, "{\"t\":\"x\ty\"}", "t", uint8(0), []byte{63})
	f.Add(`{"k":"\u00e9\ud83d\ude00"}`, ` {} `, "r", uint8(2), []byte{2})
	f.Fuzz(func(t *testing.T, a1, a2, text string, frag uint8, sizes []byte) {
		// The APIs carry fragments as JSON strings: valid UTF-8.
		a1, a2, text = strings.ToValidUTF8(a1, "\uFFFD"), strings.ToValidUTF8(a2, "\uFFFD"), strings.ToValidUTF8(text, "\uFFFD")
		reply := scriptReply{text: text, calls: []scriptCall{{"c1", "one", a1}, {"c2", "two", a2}}, stop: StopReasonToolUse}
		want := []ToolCall{}
		for _, c := range reply.calls {
			args, problem := finishArguments(c.args, nil)
			want = append(want, ToolCall{ID: c.id, Name: c.name, Arguments: args, ArgumentsError: problem})
		}
		for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
			body := scriptFor(api, reply, int(frag))
			var evs []StreamEvent
			resp, err := decode(api, &chunkReader{data: []byte(body), sizes: sizes}, func(ev StreamEvent) { evs = append(evs, ev) })
			if err != nil {
				t.Fatalf("%s: %v\n%s", api, err, body)
			}
			if len(resp.ToolCalls) != 2 {
				t.Fatalf("%s: calls %+v", api, resp.ToolCalls)
			}
			for i, tc := range resp.ToolCalls {
				if !isJSONObject(tc.Arguments) {
					t.Fatalf("%s: call %d arguments %q are not an object", api, i, tc.Arguments)
				}
				if !reflect.DeepEqual(tc, want[i]) && !sameJSON(tc.Arguments, want[i].Arguments) {
					t.Fatalf("%s: call %d\n got %+v\nwant %+v", api, i, tc, want[i])
				}
			}
			checkEvents(t, evs, resp)
		}
	})
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// FuzzStreamDecoders feeds arbitrary bytes to both decoders: they must
// never panic, never deliver a call whose arguments are not a JSON object,
// and a stream they accept must have well-formed events.
func FuzzStreamDecoders(f *testing.F) {
	f.Add([]byte(openAIReply))
	f.Add([]byte(anthropicReply))
	f.Add([]byte(openAIScript(toolReply, 4)))
	f.Add([]byte(anthropicScript(toolReply, 4)))
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"id\":\"x\"},{\"index\":0,\"function\":{\"arguments\":\"{\"}}]}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\"}}\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, api := range []string{APIOpenAICompletions, APIAnthropicMessages} {
			var evs []StreamEvent
			resp, err := decode(api, bytes.NewReader(data), func(ev StreamEvent) { evs = append(evs, ev) })
			for _, tc := range resp.ToolCalls {
				if !isJSONObject(tc.Arguments) {
					t.Fatalf("%s: arguments %q", api, tc.Arguments)
				}
			}
			if err == nil {
				checkEvents(t, evs, resp)
			}
		}
	})
}
