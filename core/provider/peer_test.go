package provider

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// TestPeerRoundTripBodies rebuilds, from the same conversation, the second
// request the established harness sent in a one-tool-call session (recorded
// from its 1.6.0 release against a loopback model; its prompt and tool
// descriptions replaced by placeholders) and compares the bodies as JSON
// values. Known differences are listed and removed explicitly.
func TestPeerRoundTripBodies(t *testing.T) {
	for _, c := range []struct {
		api string
		// ignore lists fields the harness sends that this package leaves to
		// the route's compat settings.
		ignore []string
	}{
		{APIOpenAICompletions, []string{"store"}},
		{APIAnthropicMessages, nil},
	} {
		t.Run(c.api, func(t *testing.T) {
			raw, err := os.ReadFile("testdata/peer/" + c.api + "-tool-round-trip.json")
			if err != nil {
				t.Fatal(err)
			}
			var peer map[string]any
			if err := json.Unmarshal(raw, &peer); err != nil {
				t.Fatal(err)
			}
			var fix struct {
				Model string `json:"model"`
				Tools []struct {
					Name        string          `json:"name"`
					Description string          `json:"description"`
					InputSchema json.RawMessage `json:"input_schema"`
					Function    *struct {
						Name        string          `json:"name"`
						Description string          `json:"description"`
						Parameters  json.RawMessage `json:"parameters"`
					} `json:"function"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(raw, &fix); err != nil {
				t.Fatal(err)
			}
			req := Request{Stream: true, Messages: []Message{
				{Role: RoleSystem, Content: "SYSTEM PROMPT"},
				{Role: RoleUser, Parts: []Part{{Type: PartText, Text: "read f.txt"}}},
				{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_1", Name: "read", Arguments: json.RawMessage(`{"path":"f.txt"}`)}}},
				{Role: RoleTool, ToolCallID: "call_1", ToolName: "read", Content: "hello file\n"},
			}}
			if c.api == APIAnthropicMessages {
				req.Messages[2].ToolCalls[0].ID, req.Messages[3].ToolCallID = "toolu_1", "toolu_1"
			}
			for _, tl := range fix.Tools {
				if tl.Function != nil {
					req.Tools = append(req.Tools, ToolSpec{Name: tl.Function.Name, Description: tl.Function.Description, Parameters: tl.Function.Parameters})
				} else {
					req.Tools = append(req.Tools, ToolSpec{Name: tl.Name, Description: tl.Description, Parameters: tl.InputSchema})
				}
			}
			// The harness's defaults for a models.json entry without sizes.
			route := Route{Provider: "loop", ModelID: fix.Model, API: c.api, BaseURL: "http://127.0.0.1:1", ContextWindow: 128000, MaxTokens: 16384}
			body, err := DryRun(route, req)
			if err != nil {
				t.Fatal(err)
			}
			var ours map[string]any
			if err := json.Unmarshal(body, &ours); err != nil {
				t.Fatal(err)
			}
			for _, k := range c.ignore {
				delete(peer, k)
			}
			for k := range peer {
				if !reflect.DeepEqual(peer[k], ours[k]) {
					a, _ := json.Marshal(peer[k])
					b, _ := json.Marshal(ours[k])
					t.Errorf("field %q differs\npeer: %s\nours: %s", k, a, b)
				}
			}
			for k := range ours {
				if _, ok := peer[k]; !ok {
					t.Errorf("we send %q, the established harness does not", k)
				}
			}
		})
	}
}
