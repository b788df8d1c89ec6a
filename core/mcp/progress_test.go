package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/piwasm/pi/core/tool"
)

// Issue 33: progress notifications did not extend a call's timeout, so an
// operation longer than the timeout failed although the server kept
// saying it was working. A tool runs for three times the entry's timeout,
// reporting progress often; the call completes. The same tool without
// progress still fails at the timeout.
func TestProgressExtendsTheCallTimeout(t *testing.T) {
	const timeout = time.Second
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	work := func(progress bool) sdk.ToolHandler {
		return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			for i := range 15 {
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(timeout / 5):
				}
				if progress {
					req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i + 1), Total: 15})
				}
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "finished"}}}, nil
		}
	}
	schema := map[string]any{"type": "object"}
	srv.AddTool(&sdk.Tool{Name: "talkative", InputSchema: schema}, work(true))
	srv.AddTool(&sdk.Tool{Name: "silent", InputSchema: schema}, work(false))
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer hs.Close()

	reg := tool.NewRegistry()
	cfg := &Config{Servers: []*Server{{Name: "slow", Transport: "http", URL: hs.URL, Timeout: timeout, Enabled: true, Exposure: Direct}}}
	m := NewManager(cfg, Options{Registry: reg})
	defer m.Close()
	m.Start()
	m.WaitAll(context.Background())
	run := func(name string) tool.Result {
		tl, ok := reg.Get(name)
		if !ok {
			t.Fatalf("no tool %s: %+v", name, m.Status())
		}
		res, err := tl.Run(context.Background(), tool.Call{Args: map[string]any{}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run("mcp__slow__talkative"); res.IsError || res.Text() != "finished" {
		t.Errorf("a call that reports progress: %q (error %v)", res.Text(), res.IsError)
	}
	if res := run("mcp__slow__silent"); !res.IsError {
		t.Errorf("a silent call outlived its timeout: %q", res.Text())
	}
}
