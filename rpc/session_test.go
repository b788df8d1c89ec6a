package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
)

// TestAbortStopsABranchSummary: an abort sent while navigate_tree writes
// a branch summary stops the summary (as the established harness's abort
// stops one), navigate_tree answers that it was aborted, and the session
// stays where it was.
func TestAbortStopsABranchSummary(t *testing.T) {
	dir := t.TempDir()
	l, err := resources.Load(resources.Config{Cwd: dir, AgentDir: filepath.Join(dir, "agent")})
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := session.Create("", session.Header{ID: "nav", Cwd: dir})
	var first string
	for i, m := range []prompt.Message{
		{Role: "user", Content: prompt.TextContent("first")},
		{Role: "assistant", StopReason: "stop", Content: prompt.TextContent("one")},
		{Role: "user", Content: prompt.TextContent("second")},
		{Role: "assistant", StopReason: "stop", Content: prompt.TextContent("two")},
	} {
		if err := tr.Append(session.Entry{Type: session.TypeMessage, Message: &m}); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			first = tr.LeafID()
		}
	}
	leaf := tr.LeafID()
	runner := &session.Runner{Transcript: tr, Loaded: l, Options: session.OptionsFrom(l, []string{}, nil), Tools: tool.NewRegistry(),
		Route: provider.Route{Provider: "mock", ModelID: "m", API: provider.APIOpenAICompletions},
		Model: func(ctx context.Context, req provider.Request, on func(provider.StreamEvent)) (provider.Response, error) {
			return provider.Response{Text: "ok", StopReason: "stop"}, nil
		}}
	rt := runtime.New(context.Background(), runner)
	started := make(chan struct{})
	sum := func(ctx context.Context, _ []session.Entry, _ string, _ bool) (session.BranchSummary, error) {
		close(started)
		<-ctx.Done()
		return session.BranchSummary{}, ctx.Err()
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- NewServer(outW).Serve(context.Background(), Host{Runtime: rt, Summarizer: sum}, inR, io.Discard)
		outW.Close()
	}()
	responses := make(chan map[string]any, 8)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["type"] == "response" {
				responses <- m
			}
		}
		close(responses)
	}()
	fmt.Fprintf(inW, `{"id":"nav","type":"navigate_tree","targetId":%q,"summarize":true}`+"\n", first)
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the summary did not start")
	}
	fmt.Fprintln(inW, `{"id":"stop","type":"abort"}`)
	got := map[string]map[string]any{}
	for len(got) < 2 {
		select {
		case r, ok := <-responses:
			if !ok {
				t.Fatalf("output ended with %v", got)
			}
			got[r["id"].(string)] = r
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to both commands (the summary was not stopped?): %v", got)
		}
	}
	nav := got["nav"]
	data, _ := nav["data"].(map[string]any)
	if nav["success"] != true || data["cancelled"] != true || data["aborted"] != true {
		t.Errorf("navigate_tree answered %v", nav)
	}
	if got["stop"]["success"] != true {
		t.Errorf("abort answered %v", got["stop"])
	}
	if tr.LeafID() != leaf {
		t.Errorf("the session moved to %s although the summary was aborted", tr.LeafID())
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
