package main

import (
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// abort_bash ends a running bash command (its response says cancelled);
// set_thinking_level and cycle_thinking_level announce the new level with
// thinking_level_changed, as in the established harness.
func TestRPCAbortBashAndThinkingEvents(t *testing.T) {
	c := newCLI(t)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"mock":{"baseUrl":"http://127.0.0.1:1/v1","api":"openai-completions","apiKey":"k","models":[{"id":"think-1","reasoning":true}]}}}`,
	})
	rc := startRPC(t, c, "--no-session", "--sandbox", "off")
	rc.send(`{"id":"b","type":"bash","command":"echo started; sleep 30; echo late"}`)
	rc.until("bash output", func(r map[string]any) bool { return r["type"] == "bash_execution_update" })
	start := time.Now()
	rc.send(`{"id":"a","type":"abort_bash"}`)
	if r := rc.response("a"); r["success"] != true {
		t.Fatalf("abort_bash: %v", r)
	}
	res := rc.response("b")
	data, _ := res["data"].(map[string]any)
	if data["cancelled"] != true || time.Since(start) > 20*time.Second {
		t.Errorf("bash after abort_bash: %v (after %s)", res, time.Since(start))
	}

	rc.send(`{"id":"s","type":"set_thinking_level","level":"high"}`)
	if ev := rc.until("thinking_level_changed", func(r map[string]any) bool { return r["type"] == "thinking_level_changed" }); ev["level"] != "high" {
		t.Errorf("set_thinking_level: %v", ev)
	}
	rc.send(`{"id":"c","type":"cycle_thinking_level"}`)
	if ev := rc.until("thinking_level_changed", func(r map[string]any) bool { return r["type"] == "thinking_level_changed" }); ev["level"] != "xhigh" && ev["level"] != "off" {
		t.Errorf("cycle_thinking_level: %v", ev)
	}
}

// abort_retry ends the wait before a retry at once (the run ends with the
// error); set_auto_retry false turns retrying off for what follows.
func TestRPCAbortRetryAndSetAutoRetry(t *testing.T) {
	c := newCLI(t)
	fail := scripted.Reply{Status: 503}
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{fail, fail, fail})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"retry":{"baseDelayMs":60000,"maxRetries":3}}`})
	rc := startRPC(t, c, "--no-session")
	rc.send(`{"id":"p","type":"prompt","message":"hi"}`)
	rc.event("auto_retry_start")
	start := time.Now()
	rc.send(`{"id":"ar","type":"abort_retry"}`)
	// The response and the run's end come in either order; the next
	// prompt waits until the runtime has settled.
	answered, ended := false, false
	for !answered || !ended {
		r := rc.until("abort_retry's response and agent_settled", func(r map[string]any) bool {
			return r["type"] == "agent_settled" || r["type"] == "response" && r["id"] == "ar"
		})
		if r["type"] == "agent_settled" {
			ended = true
		} else if answered = true; r["success"] != true {
			t.Fatalf("abort_retry: %v", r)
		}
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the run ended %s after abort_retry (the wait was 60s)", d)
	}
	if n := s.Served(); n != 1 {
		t.Errorf("%d requests, want 1 (no retry after abort_retry)", n)
	}

	rc.send(`{"id":"off","type":"set_auto_retry","enabled":false}`)
	if r := rc.response("off"); r["success"] != true {
		t.Fatalf("set_auto_retry: %v", r)
	}
	rc.send(`{"id":"p2","type":"prompt","message":"again"}`)
	if r := rc.until("agent_end", func(r map[string]any) bool {
		return r["type"] == "agent_end" || r["type"] == "auto_retry_start"
	}); r["type"] == "auto_retry_start" {
		t.Fatal("a retry after set_auto_retry false")
	}
	if n := s.Served(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}
