package main

import (
	"encoding/json"
	"testing"
)

func TestApply(t *testing.T) {
	c := config{APIs: []string{"openai-completions"}, Set: map[string]json.RawMessage{"service_tier": json.RawMessage(`"flex"`), "store": json.RawMessage(`null`)}}
	out, changed, err := c.apply("openai-completions", json.RawMessage(`{"model":"m","store":false}`))
	if err != nil || !changed || string(out) != `{"model":"m","service_tier":"flex"}` {
		t.Errorf("%s %v %v", out, changed, err)
	}
	if _, changed, _ := c.apply("anthropic-messages", json.RawMessage(`{}`)); changed {
		t.Error("an unlisted API was changed")
	}
	if _, _, err := c.apply("openai-completions", json.RawMessage(`[1]`)); err == nil {
		t.Error("a body that is not an object was taken")
	}
}
