package main

import (
	"encoding/json"
	"fmt"
)

// keepWhole is how many of the newest tool results stay as they are.
const keepWhole = 4

// trim replaces the content of every tool result but the newest keep with
// a note; other messages pass through untouched (as raw JSON).
func trim(msgs []json.RawMessage, keep int) ([]json.RawMessage, bool) {
	var results []int
	for i, raw := range msgs {
		var m struct {
			Role string `json:"role"`
		}
		if json.Unmarshal(raw, &m) == nil && m.Role == "toolResult" {
			results = append(results, i)
		}
	}
	if len(results) <= keep {
		return msgs, false
	}
	out := append([]json.RawMessage(nil), msgs...)
	for _, i := range results[:len(results)-keep] {
		var m map[string]json.RawMessage
		if json.Unmarshal(msgs[i], &m) != nil {
			continue
		}
		note, _ := json.Marshal([]map[string]string{{"type": "text", "text": fmt.Sprintf("[older tool output left out of this request: %d bytes; run the tool again if it is needed]", len(m["content"]))}})
		m["content"] = note
		if b, err := json.Marshal(m); err == nil {
			out[i] = b
		}
	}
	return out, true
}
