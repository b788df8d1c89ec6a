package main

import (
	"testing"
	"time"
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
