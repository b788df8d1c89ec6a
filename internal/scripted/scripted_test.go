package scripted

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/piwasm/pi/core/provider"
)

// A scripted reply reaches a client of each wire shape whole: its text and
// its calls with their arguments (pi's own decoders read them back).
func TestRepliesInEveryShape(t *testing.T) {
	rep := Reply{Text: "Reading the file.", Calls: []Call{{ID: "c1", Name: "read", Args: json.RawMessage(`{"path":"a.txt"}`)}}}
	for _, api := range []string{provider.APIOpenAICompletions, provider.APIOpenAIResponses, provider.APIAnthropicMessages} {
		t.Run(api, func(t *testing.T) {
			srv := httptest.NewServer(&Server{Replies: []Reply{rep}})
			defer srv.Close()
			route := provider.Route{Provider: "mock", ModelID: "m", API: api, BaseURL: srv.URL + "/v1", APIKey: "k"}
			resp, err := (&provider.Client{}).Stream(context.Background(), route, provider.Request{Messages: []provider.Message{{Role: provider.RoleUser, Content: "go"}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != rep.Text || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "read" || string(resp.ToolCalls[0].Arguments) != `{"path":"a.txt"}` {
				t.Fatalf("got %+v", resp)
			}
		})
	}
}
