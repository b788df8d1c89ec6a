package provider

import (
	"strings"
	"testing"
)

// TestCallsWithoutIDsGetDistinctOnes: a local server that sends tool calls
// without ids (or one id twice) still yields calls a result can be matched
// to: each gets an id no other call of the reply has.
func TestCallsWithoutIDsGetDistinctOnes(t *testing.T) {
	stream := `data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"a","arguments":"{}"}}]}}]}

data: {"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"name":"b","arguments":"{}"}}]}}]}

data: {"choices":[{"delta":{"tool_calls":[{"index":2,"id":"x","function":{"name":"c","arguments":"{}"}}]}}]}

data: {"choices":[{"delta":{"tool_calls":[{"index":3,"id":"x","function":{"name":"d","arguments":"{}"}}]}}]}

data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}

data: [DONE]

`
	resp, err := decode(APIOpenAICompletions, strings.NewReader(stream), nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var names []string
	for _, c := range resp.ToolCalls {
		if c.ID == "" || seen[c.ID] {
			t.Errorf("call %s has id %q (ids so far %v)", c.Name, c.ID, seen)
		}
		seen[c.ID] = true
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "a,b,c,d" {
		t.Fatalf("calls %v, want a,b,c,d", names)
	}
	if resp.ToolCalls[2].ID != "x" {
		t.Errorf("the first call with id x has id %q", resp.ToolCalls[2].ID)
	}
}
