package main

import (
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestRPCSummaryRetry: the summary request of a compaction fails once with
// a transient error (HTTP 503); pi waits retry.baseDelayMs and asks again,
// reporting summarization_retry_scheduled, _attempt_start (source
// compaction, reason manual) and _finished in the established harness's
// shapes, and the compaction succeeds with the second answer. The failed
// request is not retried by the provider client as well (no
// auto_retry_start).
func TestRPCSummaryRetry(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "One."}, {Text: "Two."},
		{Status: 503, Error: "upstream overloaded"},
		{Text: "## Goal\nAFTER RETRY"},
	})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"compaction":{"keepRecentTokens":4},"retry":{"baseDelayMs":1}}`})
	rc := startRPC(t, c)
	for _, id := range []string{"p1", "p2"} {
		rc.send(`{"id":"` + id + `","type":"prompt","message":"message ` + id + `"}`)
		rc.response(id)
		rc.event("agent_settled")
	}
	rc.send(`{"id":"c","type":"compact"}`)
	r := rc.response("c")
	if data := r["data"].(map[string]any); data["summary"] != "## Goal\nAFTER RETRY" {
		t.Fatalf("compact result: %v", data)
	}
	var got []string
	for _, e := range rc.seen {
		switch typ, _ := e["type"].(string); typ {
		case "auto_retry_start":
			t.Errorf("the summary request was retried by the client: %v", e)
		case "summarization_retry_scheduled":
			msg, _ := e["errorMessage"].(string)
			if e["attempt"] != 1.0 || e["maxAttempts"] != 3.0 || e["delayMs"] != 1.0 || !strings.Contains(msg, "503") || len(e) != 5 {
				t.Errorf("scheduled: %v", e)
			}
			got = append(got, typ)
		case "summarization_retry_attempt_start":
			if e["source"] != "compaction" || e["reason"] != "manual" || len(e) != 3 {
				t.Errorf("attempt start: %v", e)
			}
			got = append(got, typ)
		case "summarization_retry_finished":
			if len(e) != 1 {
				t.Errorf("finished: %v", e)
			}
			got = append(got, typ)
		case "compaction_start", "compaction_end":
			got = append(got, typ)
		}
	}
	want := "compaction_start summarization_retry_scheduled summarization_retry_attempt_start summarization_retry_finished compaction_end"
	if strings.Join(got, " ") != want {
		t.Fatalf("events:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if n := len(s.Requests()); n != 4 {
		t.Fatalf("%d requests, want 4 (two prompts, the failed summary, its retry)", n)
	}
	rc.in.Close()
}

// TestRPCBranchSummaryRetry: the summary of a branch left with
// navigate_tree is retried the same way, reported with source
// branchSummary and no reason.
func TestRPCBranchSummaryRetry(t *testing.T) {
	c := newCLI(t)
	scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "One."}, {Text: "Two."},
		{Status: 502, Error: "bad gateway"},
		{Text: "Tried the second approach."},
	})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"retry":{"baseDelayMs":1}}`})
	rc := startRPC(t, c)
	for _, p := range []string{"first", "second"} {
		rc.send(`{"id":"` + p + `","type":"prompt","message":"` + p + `"}`)
		rc.response(p)
		rc.event("agent_settled")
	}
	rc.send(`{"id":"fm","type":"get_fork_messages"}`)
	fm := rc.response("fm")["data"].(map[string]any)["messages"].([]any)
	second := fm[1].(map[string]any)["entryId"].(string)
	rc.send(`{"id":"nav","type":"navigate_tree","targetId":"` + second + `","summarize":true}`)
	se, _ := rc.response("nav")["data"].(map[string]any)["summaryEntry"].(map[string]any)
	if se == nil || !strings.Contains(se["summary"].(string), "Tried the second approach.") {
		t.Fatalf("summary entry %v", se)
	}
	var got []string
	for _, e := range rc.seen {
		switch typ, _ := e["type"].(string); typ {
		case "summarization_retry_scheduled", "summarization_retry_finished":
			got = append(got, typ)
		case "summarization_retry_attempt_start":
			if _, ok := e["reason"]; e["source"] != "branchSummary" || ok {
				t.Errorf("attempt start: %v", e)
			}
			got = append(got, typ)
		}
	}
	if strings.Join(got, " ") != "summarization_retry_scheduled summarization_retry_attempt_start summarization_retry_finished" {
		t.Fatalf("events: %v", got)
	}
	rc.in.Close()
}
