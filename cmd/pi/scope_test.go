package main

import (
	"reflect"
	"testing"
)

func TestScopeModels(t *testing.T) {
	specs := []string{"anthropic/claude-sonnet-4-5", "anthropic/claude-haiku-4-5", "openai/gpt-5", "openai/gpt-5-mini", "local/Qwen3-Coder"}
	cases := []struct {
		patterns         string
		scope, unmatched []string
	}{
		{"anthropic/*", []string{"anthropic/claude-sonnet-4-5", "anthropic/claude-haiku-4-5"}, nil},
		{"gpt-5,sonnet", []string{"openai/gpt-5", "anthropic/claude-sonnet-4-5"}, nil},
		{"GPT-5*:high", []string{"openai/gpt-5", "openai/gpt-5-mini"}, nil},
		{"qwen3-coder", []string{"local/Qwen3-Coder"}, nil},
		{"openai/gpt-5,gpt-5", []string{"openai/gpt-5"}, nil},
		{"nothing-like-it, haiku", []string{"anthropic/claude-haiku-4-5"}, []string{"nothing-like-it"}},
	}
	for _, c := range cases {
		scope, unmatched := scopeModels(splitPatterns(c.patterns), specs)
		if !reflect.DeepEqual(scope, c.scope) || !reflect.DeepEqual(unmatched, c.unmatched) {
			t.Errorf("%q: scope %v unmatched %v, want %v %v", c.patterns, scope, unmatched, c.scope, c.unmatched)
		}
	}
}
