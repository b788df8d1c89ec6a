package main

import (
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestPrintModeErrorKeepsTheTextSoFar: a reply that ends in an error (here
// a stop reason pi does not know) still prints what the model said, with
// exit code 1 and the reason on stderr only.
func TestPrintModeErrorKeepsTheTextSoFar(t *testing.T) {
	for _, api := range []string{"openai-completions", "anthropic-messages"} {
		t.Run(api, func(t *testing.T) {
			c := newCLI(t)
			scriptedModel(t, c, api, []scripted.Reply{{Text: "half an answer", Stop: "banana"}})
			out, errs, code := c.run("-p", "--cwd", t.TempDir(), "hi")
			if code != 1 {
				t.Fatalf("exit %d, want 1\nstderr: %s", code, errs)
			}
			if out != "half an answer\n" {
				t.Errorf("stdout %q, want the text so far", out)
			}
			if !strings.Contains(errs, "banana") || strings.Contains(errs, "half an answer") {
				t.Errorf("stderr %q: want the reason, and no reply text", errs)
			}
		})
	}
}

// TestArgumentsThatAreNotAnObjectAreReportedAsSuch: arguments that do not
// parse, or parse to something other than an object, are answered with
// what was wrong and what the model sent (not with "required property is
// missing" about the empty object standing in for them), in one sentence
// that names the tool once; the session records the problem on the call.
func TestArgumentsThatAreNotAnObjectAreReportedAsSuch(t *testing.T) {
	for _, api := range []string{"openai-completions", "anthropic-messages"} {
		t.Run(api, func(t *testing.T) {
			c := newCLI(t)
			scriptedModel(t, c, api, []scripted.Reply{
				{Calls: []scripted.Call{
					{ID: "b1", Name: "bash", RawArgs: `{"command": "echo hi`},
					{ID: "b2", Name: "bash", Args: json.RawMessage(`"echo hi"`)},
					{ID: "b3", Name: "bash", Args: json.RawMessage(`{"timeout": 5}`)},
				}},
				{Text: "done"},
			})
			out, errs, code := c.run("-p", "--cwd", t.TempDir(), "hi")
			if code != 0 || out != "done\n" {
				t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
			}
			msgs := sessionMessages(t, c.agentDir)
			for id, want := range map[string][]string{
				"b1": {`Invalid arguments for tool "bash": the arguments are not valid JSON`, `{"command": "echo hi`},
				"b2": {`Invalid arguments for tool "bash": the arguments must be a JSON object`, `"echo hi"`},
				"b3": {`Invalid arguments for tool "bash":`, "command: required property is missing"},
			} {
				r := resultOf(t, msgs, id)
				text := r.Content.Text()
				if !r.Failed() {
					t.Errorf("%s: not an error result: %q", id, text)
				}
				for _, w := range want {
					if !strings.Contains(text, w) {
						t.Errorf("%s: result %q lacks %q", id, text, w)
					}
				}
				if strings.Count(text, "Invalid arguments") != 1 || (id != "b3" && strings.Contains(text, "required property")) {
					t.Errorf("%s: result %q", id, text)
				}
			}
			var recorded string
			for _, m := range msgs {
				for _, b := range m.Content.Blocks {
					if b.Type == "toolCall" && b.ID == "b1" {
						recorded = b.ArgumentsError
					}
				}
			}
			if !strings.Contains(recorded, "not valid JSON") {
				t.Errorf("the session's call b1 has argumentsError %q", recorded)
			}
		})
	}
}

// TestReusedCallIDStaysTwoCalls: a model that gives two calls of one reply
// the same id made two calls: both run, in order, each with its own result
// under an id of its own (the second one suffixed), so the next request's
// history pairs every call with one result.
func TestReusedCallIDStaysTwoCalls(t *testing.T) {
	for _, api := range []string{"openai-completions", "anthropic-messages"} {
		t.Run(api, func(t *testing.T) {
			c := newCLI(t)
			s := scriptedModel(t, c, api, []scripted.Reply{
				{Calls: []scripted.Call{
					{ID: "dup", Name: "bash", Args: json.RawMessage(`{"command":"echo one"}`)},
					{ID: "dup", Name: "bash", Args: json.RawMessage(`{"command":"echo two"}`)},
				}},
				{Text: "done"},
			})
			out, errs, code := c.run("-p", "--cwd", t.TempDir(), "hi")
			if code != 0 || out != "done\n" {
				t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
			}
			msgs := sessionMessages(t, c.agentDir)
			var ids []string
			for _, m := range msgs {
				for _, b := range m.Content.Blocks {
					if b.Type == "toolCall" {
						ids = append(ids, b.ID)
					}
				}
			}
			if len(ids) != 2 || ids[0] != "dup" || ids[1] == "dup" {
				t.Fatalf("call ids %v: want two calls, the second with an id of its own", ids)
			}
			for i, want := range []string{"one\n", "two\n"} {
				if r := resultOf(t, msgs, ids[i]); r.Failed() || r.Content.Text() != want {
					t.Errorf("call %s: result %q (error %v), want %q", ids[i], r.Content.Text(), r.Failed(), want)
				}
			}
			reqs := s.Requests()
			if last := string(reqs[len(reqs)-1]); strings.Count(last, ids[1]) < 2 {
				t.Errorf("the next request does not carry call %s and its result:\n%s", ids[1], last)
			}
		})
	}
}

// jsonEvents splits JSON-mode output into events.
func jsonEvents(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("line %d not JSON: %q", i, line)
		}
		evs = append(evs, ev)
	}
	return evs
}

// TestJSONModeRetryEndsWithAutoRetryEnd: a request retried after a 429
// reports auto_retry_start and, after the assistant message, auto_retry_end
// (success, or the final error when every retry failed), so a client
// showing "retrying" knows when to stop.
func TestJSONModeRetryEndsWithAutoRetryEnd(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replies []scripted.Reply
		success bool
		code    int
	}{
		{"recovers", []scripted.Reply{{Status: 429}, {Text: "ok"}}, true, 0},
		{"gives up", []scripted.Reply{{Status: 503}, {Status: 503}, {Status: 503}, {Status: 503}, {Text: "never"}}, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			scriptedModel(t, c, "openai-completions", tc.replies)
			// Short waits (the default first wait is 2 s).
			writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"retry":{"baseDelayMs":10}}`})
			out, errs, code := c.run("--mode", "json", "--cwd", t.TempDir(), "hi")
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr: %s", code, tc.code, errs)
			}
			var seq []string
			var end map[string]any
			for _, ev := range jsonEvents(t, out) {
				typ, _ := ev["type"].(string)
				switch typ {
				case "auto_retry_start", "auto_retry_end", "message_end", "agent_end":
					if typ == "message_end" {
						if m, _ := ev["message"].(map[string]any); m["role"] != "assistant" {
							continue
						}
					}
					if n := len(seq); n == 0 || seq[n-1] != typ {
						seq = append(seq, typ)
					}
					if typ == "auto_retry_end" {
						end = ev
					}
				}
			}
			if got := strings.Join(seq, " "); got != "auto_retry_start message_end auto_retry_end agent_end" {
				t.Fatalf("events %s", got)
			}
			if end["success"] != tc.success {
				t.Errorf("auto_retry_end %v, want success %v", end, tc.success)
			}
			if fe, _ := end["finalError"].(string); tc.success == (fe != "") || (!tc.success && !strings.Contains(fe, "503")) {
				t.Errorf("auto_retry_end finalError %q", fe)
			}
		})
	}
}

// TestJSONModeAssistantStartCarriesUsage: the assistant's message_start
// has a usage object (zeros), as the established harness sends it.
func TestJSONModeAssistantStartCarriesUsage(t *testing.T) {
	c := newCLI(t)
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "hi"}})
	out, errs, code := c.run("--mode", "json", "--cwd", t.TempDir(), "hi")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	seen := false
	for _, ev := range jsonEvents(t, out) {
		m, _ := ev["message"].(map[string]any)
		if ev["type"] != "message_start" || m["role"] != "assistant" {
			continue
		}
		seen = true
		u, ok := m["usage"].(map[string]any)
		if !ok || u["input"] != float64(0) || u["totalTokens"] != float64(0) {
			t.Errorf("assistant message_start usage %v", m["usage"])
		}
	}
	if !seen {
		t.Fatal("no assistant message_start")
	}
}

// TestContinueKeepsTheSessionsModel: -c and --session without --model go
// on with the model the session last used (its assistant messages, or a
// model_change entry the established harness wrote), not the first one in
// models.json; a model named on the command line still wins.
func TestContinueKeepsTheSessionsModel(t *testing.T) {
	c := newCLI(t)
	s := &scripted.Server{Fallback: "ok"}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m1"},{"id":"m2"}]}}}`})
	proj := t.TempDir()
	lastModel := func() string {
		reqs := s.Requests()
		var body struct{ Model string }
		json.Unmarshal(reqs[len(reqs)-1], &body)
		return body.Model
	}
	run := func(args ...string) {
		t.Helper()
		if out, errs, code := c.run(append([]string{"--cwd", proj}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d %q\nstderr: %s", args, code, out, errs)
		}
	}
	run("-p", "--model", "mock/m2", "one")
	run("-p", "-c", "two")
	if m := lastModel(); m != "m2" {
		t.Errorf("-c used %s, want the session's m2", m)
	}
	run("-p", "-c", "--model", "mock/m1", "three")
	run("-p", "-c", "four")
	if m := lastModel(); m != "m1" {
		t.Errorf("-c after switching to m1 used %s", m)
	}

	peer := filepath.Join(t.TempDir(), "peer.jsonl")
	writeFiles(t, filepath.Dir(peer), map[string]string{"peer.jsonl": `{"type":"session","version":3,"id":"01a22f2a-64fe-7014-9bdb-6f271a41aab2","timestamp":"2026-12-01T01:13:57.257Z","cwd":"` + proj + `"}
{"type":"model_change","id":"19ec1d49","parentId":null,"timestamp":"2026-12-01T01:13:57.824Z","provider":"mock","modelId":"m2"}
`})
	run("-p", "--session", peer, "five")
	if m := lastModel(); m != "m2" {
		t.Errorf("--session on a file whose model_change names m2 used %s", m)
	}
}

// TestContinueKeepsTheSessionsThinkingLevel: a session whose last
// thinking_level_change (as the established harness writes it) says high
// goes on at high when no --thinking is given; --thinking still wins.
func TestContinueKeepsTheSessionsThinkingLevel(t *testing.T) {
	c := newCLI(t)
	s := &scripted.Server{Fallback: "ok"}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m1","reasoning":true}]}}}`})
	proj := t.TempDir()
	dir := t.TempDir()
	peer := filepath.Join(dir, "peer.jsonl")
	writeFiles(t, dir, map[string]string{"peer.jsonl": `{"type":"session","version":3,"id":"01a22f2a-64fe-7014-9bdb-6f271a41aab2","timestamp":"2026-12-01T01:13:57.257Z","cwd":"` + proj + `"}
{"type":"model_change","id":"19ec1d49","parentId":null,"timestamp":"2026-12-01T01:13:57.824Z","provider":"mock","modelId":"m1"}
{"type":"thinking_level_change","id":"eff83024","parentId":"19ec1d49","timestamp":"2026-12-01T01:13:57.825Z","thinkingLevel":"high"}
`})
	effort := func() string {
		reqs := s.Requests()
		var body struct {
			ReasoningEffort string `json:"reasoning_effort"`
		}
		json.Unmarshal(reqs[len(reqs)-1], &body)
		return body.ReasoningEffort
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "--session", peer, "one"}, "high"},
		{[]string{"-p", "--session", peer, "--thinking", "low", "two"}, "low"},
	} {
		if out, errs, code := c.run(append([]string{"--cwd", proj}, tc.args...)...); code != 0 {
			t.Fatalf("%v: exit %d %q\nstderr: %s", tc.args, code, out, errs)
		}
		if got := effort(); got != tc.want {
			t.Errorf("%v: reasoning_effort %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestSessionRecordsModelAndThinkingChanges: pi writes the established
// harness's model_change and thinking_level_change entries when they
// change (and only then), so -c, in either harness, goes on with them.
func TestSessionRecordsModelAndThinkingChanges(t *testing.T) {
	c := newCLI(t)
	s := &scripted.Server{Fallback: "ok"}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m1","reasoning":true},{"id":"m2","reasoning":true}]}}}`})
	proj := t.TempDir()
	for _, args := range [][]string{
		{"-p", "--model", "mock/m2", "--thinking", "high", "one", "two"},
		{"-p", "-c", "three"},
	} {
		if out, errs, code := c.run(append([]string{"--cwd", proj}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d %q\nstderr: %s", args, code, out, errs)
		}
	}
	var body struct {
		Model           string
		ReasoningEffort string `json:"reasoning_effort"`
	}
	reqs := s.Requests()
	json.Unmarshal(reqs[len(reqs)-1], &body)
	if body.Model != "m2" || body.ReasoningEffort != "high" {
		t.Errorf("-c sent model %q effort %q, want m2 high", body.Model, body.ReasoningEffort)
	}
	files, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl"))
	data := readFile(t, files[0])
	if n := strings.Count(data, `"type":"model_change"`); n != 1 || !strings.Contains(data, `"provider":"mock","modelId":"m2"`) {
		t.Errorf("%d model_change entries (want one, for m2):\n%s", n, data)
	}
	if n := strings.Count(data, `"type":"thinking_level_change"`); n != 1 || !strings.Contains(data, `"thinkingLevel":"high"`) {
		t.Errorf("%d thinking_level_change entries (want one, high)", n)
	}
}
