package provider

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Chunks as servers send them: each must take the fast path and decode as
// json.Unmarshal decodes it.
var typicalChunks = []string{
	`{"choices":[{"delta":{"content":"","role":"assistant"},"finish_reason":null,"index":0}],"id":"chatcmpl-scripted","model":"scripted","object":"chat.completion.chunk"}`,
	`{"choices":[{"delta":{"content":"Turn 5."},"finish_reason":null,"index":0}],"id":"chatcmpl-scripted","model":"scripted","object":"chat.completion.chunk"}`,
	`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"","name":"edit"},"id":"e5","index":0,"type":"function"}]},"finish_reason":null,"index":0}],"id":"x","model":"m","object":"chat.completion.chunk"}`,
	`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"path\""},"index":1}]},"finish_reason":null,"index":0}],"id":"x","model":"m","object":"chat.completion.chunk"}`,
	`{"choices":[{"delta":{},"finish_reason":"tool_calls","index":0}],"id":"x","model":"m","object":"chat.completion.chunk"}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":" wörld\n\t\\ /"},"logprobs":null,"finish_reason":null}]}`,
	`{"choices":[{"delta":{"reasoning_content":"think","content":null},"index":0}]}`,
	`{"choices":[]}`,
	` {"choices" : [ { "delta" : { "content" : "a" } } ] } `,
	`{"choices":[],"id":"chatcmpl-scripted","model":"scripted","object":"chat.completion.chunk","usage":{"completion_tokens":10,"prompt_tokens":100,"total_tokens":110}}`,
	`{"id":"c1","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":8,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`,
	`{"choices":[{"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":5,"cached_tokens":2}}],"usage":null}`,
	`{"choices":[],"usage":{"prompt_tokens":7,"prompt_cache_hit_tokens":4,"prompt_cache_miss_tokens":3,"prompt_tokens_details":{"cached_tokens":null,"cache_write_tokens":2}}}`,
	`{"choices":[],"usage":{"prompt_tokens":null,"completion_tokens":-0,"prompt_tokens_details":null}}`,
}

func TestOpenAIChunkFastPath(t *testing.T) {
	for _, in := range typicalChunks {
		var fast, slow openAIChunk
		if !decodeOpenAIChunk([]byte(in), &fast) {
			t.Errorf("fast path refused %s", in)
			continue
		}
		if err := json.Unmarshal([]byte(in), &slow); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s:\nfast %+v\njson %+v", in, fast, slow)
		}
	}
	// As a stream decodes them: one chunk reused from event to event must
	// hold each as json.Unmarshal decodes it into a fresh one.
	var reused openAIChunk
	for round := range 2 {
		for _, in := range typicalChunks {
			reused = openAIChunk{Choices: reused.Choices[:0]}
			var fresh openAIChunk
			if !decodeOpenAIChunk([]byte(in), &reused) || json.Unmarshal([]byte(in), &fresh) != nil {
				t.Fatalf("round %d: %s not decoded", round, in)
			}
			if !reflect.DeepEqual(reused, fresh) {
				t.Errorf("round %d, reused chunk: %s:\nfast %+v\njson %+v", round, in, reused, fresh)
			}
		}
	}
	// What the fast path leaves to json.Unmarshal.
	for _, in := range []string{
		`{"error":{"message":"x"}}`,
		`{"choices":[],"usage":{"prompt_tokens":1.0}}`,
		`{"choices":[],"usage":{"prompt_tokens":1234567890}}`,
		`{"choices":[],"usage":{"Prompt_Tokens":1}}`,
		`{"choices":[],"usage":{"prompt_tokens_details":{"Cached_Tokens":1}}}`,
		`{"choices":[],"usage":[]}`,
		`{"Choices":[]}`,
		`{"choices":[{"delta":{"content":"\u00e9"}}]}`,
		`{"choices":[{"delta":{"content":"a"}}],"choices":[]}`,
		`{"choices":[{"delta":{"tool_calls":[{"index":1.5}]}}]}`,
		`{"choices":[{"delta":{"content":"a"}}]} x`,
		`{"choices":[{"delta":{"content":"a\x01"}}]}`,
		`{"choices":[{"delta":{"content":"\xff"}}]}`,
		`{"choices":[{"delta":{"content":"a"}},]}`,
		`{"id":01}`,
		`null`,
	} {
		var c openAIChunk
		if decodeOpenAIChunk([]byte(in), &c) {
			t.Errorf("fast path took %s", in)
		}
	}
}

// A streamed fragment of arguments costs a handful of allocations (the
// chunk's slices and strings), not json.Unmarshal's reflection.
func TestOpenAIChunkAllocs(t *testing.T) {
	in := []byte(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{\"path\""},"index":1}]},"finish_reason":null,"index":0}],"id":"chatcmpl-1","model":"m","object":"chat.completion.chunk"}`)
	n := testing.AllocsPerRun(100, func() {
		var c openAIChunk
		if !decodeOpenAIChunk(in, &c) {
			t.Fatal("refused")
		}
	})
	slow := testing.AllocsPerRun(100, func() {
		var c openAIChunk
		if err := json.Unmarshal(in, &c); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations per chunk: %v (json.Unmarshal: %v)", n, slow)
	if n > 5 {
		t.Errorf("%v allocations per chunk (json.Unmarshal: %v)", n, slow)
	}
}

// FuzzOpenAIChunk holds the fast decoder to json.Unmarshal: whatever it
// accepts, json.Unmarshal accepts too and decodes to the same value.
func FuzzOpenAIChunk(f *testing.F) {
	for _, in := range typicalChunks {
		f.Add([]byte(in))
	}
	f.Add([]byte(`{"choices":[{"delta":{"tool_calls":[{"index":-0,"id":null,"function":null}]}}]}`))
	f.Add([]byte(`{"choices":null,"x":[1,-2.5e+3,true,false,null,{"a":"b"}]}`))
	f.Add([]byte(`{"choices":[{"usage":{"cached_tokens":1}}],"usage":{"prompt_tokens":1,"prompt_tokens_details":{"cached_tokens":2,"cache_write_tokens":null}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast openAIChunk
		if !decodeOpenAIChunk(data, &fast) {
			return
		}
		var slow openAIChunk
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast path took %q, json.Unmarshal: %v", data, err)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q:\nfast %+v\njson %+v", data, fast, slow)
		}
	})
}
