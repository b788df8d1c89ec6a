package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestTrimKeepsTheNewest(t *testing.T) {
	var msgs []json.RawMessage
	for i := range 6 {
		msgs = append(msgs, json.RawMessage(fmt.Sprintf(`{"role":"assistant","content":[{"type":"toolCall","id":"c%d","name":"bash","arguments":{}}]}`, i)))
		msgs = append(msgs, json.RawMessage(fmt.Sprintf(`{"role":"toolResult","toolCallId":"c%d","toolName":"bash","content":[{"type":"text","text":"output %d"}]}`, i, i)))
	}
	out, changed := trim(msgs, 4)
	if !changed || len(out) != len(msgs) {
		t.Fatalf("changed %v, %d messages", changed, len(out))
	}
	for i, raw := range out {
		s := string(raw)
		old := i < 4 && i%2 == 1
		if old != strings.Contains(s, "left out of this request") || (!old && s != string(msgs[i])) {
			t.Errorf("message %d: %s", i, s)
		}
		if old && !strings.Contains(s, `"toolCallId":"c`) {
			t.Errorf("message %d lost its call id: %s", i, s)
		}
	}
	if _, changed := trim(msgs[:8], 4); changed {
		t.Error("four results were trimmed")
	}
}
