//go:build !wasip1

package sdk

import (
	"errors"
	"strings"
	"testing"

	"github.com/piwasm/pi/abi"
)

func TestHarness(t *testing.T) {
	t.Cleanup(func() { beforeAgentStart, input = nil, nil })
	OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *BeforeAgentStart) error {
		var cfg struct{ Text string }
		if err := Config(&cfg); err != nil {
			return err
		}
		if cfg.Text == "panic" {
			panic("asked to")
		}
		head, err := ReadFile(".git/HEAD")
		if err != nil && !errors.Is(err, ErrDenied) {
			return err
		}
		Log(abi.LogInfo, "input "+Input(ev))
		r.SetSection("team", cfg.Text+"|"+string(head), Order(250))
		return nil
	})
	cases := []struct {
		name string
		h    Harness
		want string
		err  string
		log  string
	}{
		{name: "config and file", h: Harness{Config: `{"text":"hi"}`, Files: map[string]string{".git/HEAD": "main"}, Values: map[string]string{abi.KeyInput: "typed"}},
			want: "hi|main", log: "info input typed"},
		{name: "ungranted file", h: Harness{Config: `{"text":"x"}`}, want: "x|", log: "info input "},
		{name: "panic becomes an error", h: Harness{Config: `{"text":"panic"}`}, err: "panic: asked to"},
		{name: "bad config", h: Harness{Config: `[1]`}, err: "config:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := c.h.BeforeAgentStart(abi.BeforeAgentStartEvent{})
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Ops) != 1 || res.Ops[0].Text != c.want || *res.Ops[0].Order != 250 {
				t.Fatalf("ops %+v", res.Ops)
			}
			if len(c.h.Logs) != 1 || c.h.Logs[0] != c.log {
				t.Fatalf("logs %q", c.h.Logs)
			}
		})
	}
	// A hook without a handler answers with an error envelope.
	var h Harness
	if _, err := h.Input(abi.InputEvent{Text: "x"}); err == nil || !strings.Contains(err.Error(), "no handler registered for input") {
		t.Fatalf("missing handler: %v", err)
	}
	OnInput(func(ev *abi.InputEvent) (abi.InputResult, error) { return Transform(strings.ToUpper(ev.Text)), nil })
	if res, err := h.Input(abi.InputEvent{Text: "x"}); err != nil || res.Action != abi.ActionTransform || res.Text != "X" {
		t.Fatalf("input: %+v %v", res, err)
	}
}
