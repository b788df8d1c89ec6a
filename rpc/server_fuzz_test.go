package rpc

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/runtime"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
)

// FuzzRPCCommand feeds arbitrary lines to the RPC command handler: every
// line gets at most one response and nothing panics. The session has no
// tools (a fuzzed bash command must not run) and a model that answers at
// once.
func FuzzRPCCommand(f *testing.F) {
	for _, seed := range []string{
		`{"id":"1","type":"prompt","message":"hi"}`,
		`{"type":"prompt","message":"x","streamingBehavior":"steer"}`,
		`{"type":"steer","message":"/skill:x"}`,
		`{"type":"abort"}`, `{"type":"get_state"}`, `{"type":"get_messages"}`, `{"type":"clear_queue"}`,
		`{"type":"set_model","provider":"a","modelId":"b"}`, `{"type":"new_session"}`,
		`{"type":"switch_session","sessionPath":""}`, `{"type":"bash","command":"true"}`,
		`{"type":"extension_ui_response","id":"x","value":"Allow once"}`, `{"type":"set_steering_mode","mode":"all"}`,
		`{"type":"get_tree"}`, `{"type":"get_entries","since":"x"}`, `{"type":"fork","entryId":"x"}`, `{"type":"clone"}`,
		`{"type":"get_fork_messages"}`, `{"type":"set_session_name","name":" n "}`, `{"type":"get_session_stats"}`,
		`{"type":"navigate_tree","targetId":"x","summarize":true}`,
		`not json`, `{"type":7}`, `{"id":null,"type":"get_commands"}`, "",
	} {
		f.Add(seed)
	}
	dir := f.TempDir()
	l, err := resources.Load(resources.Config{Cwd: dir, AgentDir: filepath.Join(dir, "agent")})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line string) {
		tr, _ := session.Create("", session.Header{ID: "fuzz", Cwd: dir})
		runner := &session.Runner{Transcript: tr, Loaded: l, Options: session.OptionsFrom(l, []string{}, nil), Tools: tool.NewRegistry(),
			Route: provider.Route{Provider: "mock", ModelID: "m", API: provider.APIOpenAICompletions},
			Model: func(ctx context.Context, req provider.Request, on func(provider.StreamEvent)) (provider.Response, error) {
				return provider.Response{Text: "ok", StopReason: "stop"}, nil
			}}
		rt := runtime.New(context.Background(), runner)
		s := NewServer(io.Discard)
		s.ctx = context.Background()
		s.h = Host{Runtime: rt,
			NewSession: func(string) error {
				tr, _ := session.Create("", session.Header{ID: "fresh", Cwd: dir})
				return rt.Switch(tr)
			},
			OpenSession: func(string) error { return errors.New("no files in this test") },
			SetModel: func(string, string) (provider.Route, error) {
				return provider.Route{}, errors.New("no models in this test")
			},
			Models: func() ([]provider.ModelInfo, error) { return nil, nil },
		}
		s.handle(context.Background(), []byte(line))
		rt.Wait()
		s.work.Wait()
	})
}
