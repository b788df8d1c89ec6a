package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/session"
)

// TestSessionRequestsRebuildExactlyWithToolCalls: every request of the
// scripted tool-using session (read, failing bash, unknown tool, edit,
// write, bash, read with offset) rebuilds from the session file to the
// messages and tools that were sent, in both wire shapes.
func TestSessionRequestsRebuildExactlyWithToolCalls(t *testing.T) {
	for _, api := range []string{"openai-completions", "anthropic-messages"} {
		t.Run(api, func(t *testing.T) {
			c := newCLI(t)
			s := scriptedModel(t, c, api, loadScript(t, "scenario.json"))
			proj := t.TempDir()
			writeFiles(t, proj, map[string]string{"notes.txt": "alpha\nbeta\ngamma\n"})
			if out, errs, code := c.run("-p", "--cwd", proj, "tidy the notes"); code != 0 {
				t.Fatalf("exit %d %q\nstderr: %s", code, out, errs)
			}
			models, err := provider.LoadModels(filepath.Join(c.agentDir, "models.json"), os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			sel, err := models.Select(provider.Selection{Model: "mock/mock-1"})
			if err != nil {
				t.Fatal(err)
			}
			files, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl"))
			tr, err := session.Load(files[0])
			if err != nil {
				t.Fatal(err)
			}
			sent := s.Requests()
			if n := session.Requests(tr.Branch()); n != len(sent) {
				t.Fatalf("%d requests recorded, %d sent", n, len(sent))
			}
			for k, body := range sent {
				rq, ok := session.RequestAt(tr.Branch(), k)
				if !ok {
					t.Fatalf("request %d not found", k)
				}
				rebuilt, err := provider.DryRun(sel.Route, provider.Request{Model: sel.Route.ModelID, Messages: rq.Messages, Tools: rq.Tools, Stream: true})
				if err != nil {
					t.Fatalf("request %d: %v", k, err)
				}
				var a, b map[string]any
				json.Unmarshal(body, &a)
				json.Unmarshal(rebuilt, &b)
				for _, key := range []string{"messages", "tools", "system"} {
					if !reflect.DeepEqual(a[key], b[key]) {
						ja, _ := json.Marshal(a[key])
						jb, _ := json.Marshal(b[key])
						t.Errorf("request %d: %s differ\nsent:    %s\nrebuilt: %s", k, key, ja, jb)
					}
				}
			}
		})
	}
}
