package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestRPCThinkingModelAndExport: the thinking and model controls and
// export_html over RPC, with the established harness's shapes; the model
// level carries over a model switch, and nothing reaches the model.
func TestRPCThinkingModelAndExport(t *testing.T) {
	c := newCLI(t)
	s := &scripted.Server{Replies: []scripted.Reply{{Text: "the reply to export"}}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k",` +
			`"models":[{"id":"think-1","reasoning":true},{"id":"plain-2"},{"id":"think-3","reasoning":true}]}}}`,
		"settings.json": `{"enabledModels":["think-*"]}`,
	})
	rc := startRPC(t, c, "--model", "mock/think-1")
	rc.send(`{"id":"l","type":"get_available_thinking_levels"}`)
	if got := rc.response("l")["data"].(map[string]any)["levels"]; len(got.([]any)) != 5 {
		t.Errorf("levels of a reasoning model: %v", got)
	}
	rc.send(`{"id":"s","type":"set_thinking_level","level":"high"}`)
	rc.response("s")
	rc.send(`{"id":"bad","type":"set_thinking_level","level":"max"}`)
	if r := rc.until("bad", func(r map[string]any) bool { return r["id"] == "bad" }); r["success"] != false || !strings.Contains(r["error"].(string), "takes the thinking levels") {
		t.Errorf("an unsupported level: %v", r)
	}
	rc.send(`{"id":"c","type":"cycle_thinking_level"}`)
	if lvl := rc.response("c")["data"].(map[string]any)["level"]; lvl != "off" {
		t.Errorf("cycle after high: %v", lvl)
	}
	rc.send(`{"id":"s2","type":"set_thinking_level","level":"low"}`)
	rc.response("s2")
	// enabledModels scopes the cycle to the think-* models, skipping plain-2.
	rc.send(`{"id":"m","type":"cycle_model"}`)
	d := rc.response("m")["data"].(map[string]any)
	if d["model"].(map[string]any)["id"] != "think-3" || d["isScoped"] != true || d["thinkingLevel"] != "low" {
		t.Errorf("cycle_model: %v", d)
	}
	rc.send(`{"id":"p","type":"prompt","message":"hello"}`)
	rc.response("p")
	rc.event("agent_end")
	out := filepath.Join(t.TempDir(), "s.html")
	rc.send(`{"id":"e","type":"export_html","outputPath":"` + out + `"}`)
	if p := rc.response("e")["data"].(map[string]any)["path"]; p != out {
		t.Errorf("export path %v", p)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "the reply to export") {
		t.Errorf("export: %v", err)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), `"think-3"`) || !strings.Contains(string(reqs[0]), `"reasoning_effort":"low"`) {
		t.Errorf("the prompt did not use think-3 at low: %s", reqs)
	}
	rc.in.Close()
}

// get_available_models and set_model answer with the established
// harness's whole Model object: what that harness answered for the same
// models.json (its input list, and zero prices where models.json gives
// none).
func TestRPCModelObject(t *testing.T) {
	c := newCLI(t)
	const base = "http://127.0.0.1:9/v1"
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"mock":{"baseUrl":"` + base + `","api":"openai-completions","apiKey":"k","models":[{"id":"m","contextWindow":10000},` +
			`{"id":"n","input":["text","image"],"cost":{"input":1,"output":2,"cacheRead":0.1,"cacheWrite":1.25}}]}}}`,
	})
	m := `{"id":"m","name":"m","api":"openai-completions","provider":"mock","baseUrl":"` + base + `","reasoning":false,"input":["text"],"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0},"contextWindow":10000,"maxTokens":16384}`
	n := `{"id":"n","name":"n","api":"openai-completions","provider":"mock","baseUrl":"` + base + `","reasoning":false,"input":["text","image"],"cost":{"input":1,"output":2,"cacheRead":0.1,"cacheWrite":1.25},"contextWindow":128000,"maxTokens":16384}`
	var want struct{ list, set any }
	if json.Unmarshal([]byte(`{"models":[`+m+`,`+n+`]}`), &want.list) != nil || json.Unmarshal([]byte(n), &want.set) != nil {
		t.Fatal("bad expectation")
	}
	rc := startRPC(t, c, "--model", "mock/m", "--no-session")
	rc.send(`{"id":"l","type":"get_available_models"}`)
	if got := rc.response("l")["data"]; !reflect.DeepEqual(got, want.list) {
		t.Errorf("get_available_models:\n%v\nwant\n%v", got, want.list)
	}
	rc.send(`{"id":"s","type":"set_model","provider":"mock","modelId":"n"}`)
	if got := rc.response("s")["data"]; !reflect.DeepEqual(got, want.set) {
		t.Errorf("set_model:\n%v\nwant\n%v", got, want.set)
	}
}
