package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// rpcClient drives RPC mode over pipes, as an editor would: it writes
// command lines and reads records.
type rpcClient struct {
	t       *testing.T
	in      io.WriteCloser
	records chan map[string]any
	done    chan int
	seen    []map[string]any
}

// read passes the JSON lines of pi's stdout to rc.records until it ends,
// then closes records and calls end.
func (rc *rpcClient) read(stdout io.Reader, end func()) {
	br := bufio.NewReader(stdout)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var v map[string]any
			if jerr := json.Unmarshal(line, &v); jerr != nil {
				rc.t.Errorf("not JSON on stdout: %q", line)
			} else {
				rc.records <- v
			}
		}
		if err != nil {
			close(rc.records)
			end()
			return
		}
	}
}

func startRPC(t *testing.T, c *cli, args ...string) *rpcClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	rc := &rpcClient{t: t, in: inW, records: make(chan map[string]any, 1024), done: make(chan int, 1)}
	a := &app{stdin: inR, stdout: outW, stderr: io.Discard,
		getenv: func(k string) string {
			if k == "PI_CODING_AGENT_DIR" {
				return c.agentDir
			}
			return ""
		}, home: c.home, wd: c.home}
	go func() {
		code := a.run(context.Background(), append([]string{"--mode", "rpc"}, args...))
		outW.Close()
		rc.done <- code
	}()
	go rc.read(outR, func() {})
	return rc
}

func (rc *rpcClient) send(cmd string) {
	rc.t.Helper()
	if _, err := io.WriteString(rc.in, cmd+"\n"); err != nil {
		rc.t.Fatal(err)
	}
}

// until reads records until one matches; it fails the test after a
// generous deadline (the machine may be loaded).
func (rc *rpcClient) until(what string, match func(map[string]any) bool) map[string]any {
	rc.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case r, ok := <-rc.records:
			if !ok {
				rc.t.Fatalf("stdout closed while waiting for %s", what)
			}
			rc.seen = append(rc.seen, r)
			if match(r) {
				return r
			}
		case <-deadline:
			last := rc.seen[max(0, len(rc.seen)-12):]
			var b strings.Builder
			for _, r := range last {
				line, _ := json.Marshal(r)
				fmt.Fprintf(&b, "\n  %.300s", line)
			}
			rc.t.Fatalf("no %s; saw %d records, the last ones:%s", what, len(rc.seen), b.String())
		}
	}
}

func (rc *rpcClient) response(id string) map[string]any {
	rc.t.Helper()
	r := rc.until("response "+id, func(r map[string]any) bool { return r["type"] == "response" && r["id"] == id })
	if r["success"] != true {
		rc.t.Fatalf("%s failed: %v", id, r["error"])
	}
	return r
}

func (rc *rpcClient) event(typ string) map[string]any {
	rc.t.Helper()
	return rc.until(typ, func(r map[string]any) bool { return r["type"] == typ })
}

// TestRPCSession is an editor's whole session over a pipe: a prompt with
// a tool call, a steering message typed while the tool runs, state and
// messages, a permission question answered in place, an abort, a direct
// command, the command list, a model switch, a new session, and an
// orderly exit on EOF.
func TestRPCSession(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, proj, map[string]string{
		".pi/prompts/review.md": "---\ndescription: review the change\n---\nReview $1 carefully.",
		"victim.txt":            "x",
	})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"permissions":{"ask":["bash(rm:*)"]}}`})
	srv := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "slow", Name: "bash", Args: json.RawMessage(`{"command":"sleep 2; echo slept"}`)}}},
		{Text: "Steered as asked."},
		{Calls: []scripted.Call{{ID: "rm", Name: "bash", Args: json.RawMessage(`{"command":"rm victim.txt"}`)}}},
		{Text: "Removed."},
		{Calls: []scripted.Call{{ID: "long", Name: "bash", Args: json.RawMessage(`{"command":"sleep 60"}`)}}},
		{Text: "After the abort."},
	})
	trustProject(t, c, proj)
	rc := startRPC(t, c, "--cwd", proj)

	rc.send(`{"id":"p1","type":"prompt","message":"run something slow"}`)
	if d := rc.response("p1")["data"].(map[string]any)["disposition"]; d != "started" {
		t.Errorf("disposition %v", d)
	}
	rc.event("tool_execution_start")
	rc.send(`{"id":"busy","type":"prompt","message":"no behaviour given"}`)
	busy := rc.until("busy response", func(r map[string]any) bool { return r["id"] == "busy" })
	if busy["success"] != false || !strings.Contains(busy["error"].(string), "streamingBehavior") {
		t.Errorf("a prompt while busy without streamingBehavior: %v", busy)
	}
	rc.send(`{"id":"s1","type":"prompt","message":"also mention the steering","streamingBehavior":"steer"}`)
	if d := rc.response("s1")["data"].(map[string]any)["disposition"]; d != "queued" {
		t.Errorf("steer disposition %v", d)
	}
	settled := rc.event("agent_settled")
	if settled["aborted"] != false {
		t.Errorf("settled: %v", settled)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1]), "also mention the steering") {
		t.Fatalf("the steering message did not reach the second request (%d requests)", len(reqs))
	}

	rc.send(`{"id":"st","type":"get_state"}`)
	st := rc.response("st")["data"].(map[string]any)
	if st["isStreaming"] != false || st["messageCount"].(float64) != 5 || st["model"].(map[string]any)["id"] != "mock-1" {
		t.Errorf("state: %v", st)
	}
	rc.send(`{"id":"gm","type":"get_messages"}`)
	msgs := rc.response("gm")["data"].(map[string]any)["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "system,user,assistant,toolResult,user,assistant" {
		t.Errorf("roles %v", roles)
	}

	// A permission "ask" rule becomes a select dialog; the answer lets the call run.
	rc.send(`{"id":"p2","type":"prompt","message":"remove the victim"}`)
	rc.response("p2")
	q := rc.event("extension_ui_request")
	if q["method"] != "select" || !strings.Contains(q["title"].(string), "rm victim.txt") {
		t.Fatalf("question: %v", q)
	}
	rc.send(`{"type":"extension_ui_response","id":"` + q["id"].(string) + `","value":"Allow once"}`)
	end := rc.until("the rm result", func(r map[string]any) bool { return r["type"] == "tool_execution_end" && r["toolCallId"] == "rm" })
	if end["isError"] != false {
		t.Errorf("allowed rm failed: %v", end["result"])
	}
	rc.event("agent_settled")

	// Abort a long command: the call still gets a result.
	rc.send(`{"id":"p3","type":"prompt","message":"wait a minute"}`)
	rc.response("p3")
	rc.event("tool_execution_start")
	rc.send(`{"id":"ab","type":"abort"}`)
	rc.response("ab")
	var abortedSettle map[string]any
	for _, r := range rc.seen {
		if r["type"] == "agent_settled" {
			abortedSettle = r
		}
	}
	if abortedSettle == nil || abortedSettle["aborted"] != true {
		t.Errorf("abort did not settle as aborted before its response: %v", abortedSettle)
	}

	rc.send(`{"id":"b1","type":"bash","command":"echo direct"}`)
	b := rc.response("b1")["data"].(map[string]any)
	if b["output"] != "direct\n" || b["exitCode"].(float64) != 0 {
		t.Errorf("bash: %v", b)
	}
	rc.send(`{"id":"b2","type":"bash","command":"exit 3"}`)
	if b := rc.response("b2")["data"].(map[string]any); b["exitCode"].(float64) != 3 {
		t.Errorf("bash exit code: %v", b)
	}

	rc.send(`{"id":"gc","type":"get_commands"}`)
	cmds := rc.response("gc")["data"].(map[string]any)["commands"].([]any)
	found := false
	for _, x := range cmds {
		m := x.(map[string]any)
		info, _ := m["sourceInfo"].(map[string]any)
		found = found || (m["name"] == "review" && m["source"] == "prompt" && m["description"] == "review the change" &&
			info["source"] == "auto" && info["scope"] == "project" && info["origin"] == "top-level" &&
			strings.HasSuffix(fmt.Sprint(info["path"]), filepath.Join(".pi", "prompts", "review.md")))
	}
	if !found {
		t.Errorf("template missing from get_commands: %v", cmds)
	}

	// The next prompt carries the direct command's output.
	rc.send(`{"id":"p4","type":"prompt","message":"/review main.go"}`)
	rc.response("p4")
	rc.event("agent_settled")
	reqs = srv.Requests()
	last := string(reqs[len(reqs)-1])
	if !strings.Contains(last, "Review main.go carefully.") || !strings.Contains(last, "Ran `echo direct`") {
		t.Errorf("last request lacks the template or the command output: %s", last)
	}

	rc.send(`{"id":"sm","type":"set_model","provider":"nope","modelId":"missing"}`)
	if r := rc.until("sm", func(r map[string]any) bool { return r["id"] == "sm" }); r["success"] != false {
		t.Errorf("unknown model accepted: %v", r)
	}
	rc.send(`{"id":"sm2","type":"set_model","provider":"mock","modelId":"mock-1"}`)
	rc.response("sm2")

	rc.send(`{"id":"ns","type":"new_session"}`)
	rc.response("ns")
	rc.send(`{"id":"st2","type":"get_state"}`)
	st2 := rc.response("st2")["data"].(map[string]any)
	if st2["messageCount"].(float64) != 0 || st2["sessionId"] == st["sessionId"] {
		t.Errorf("new session state: %v", st2)
	}
	rc.send(`{"id":"sw","type":"switch_session","sessionPath":` + jsonQuote(st["sessionFile"].(string)) + `}`)
	rc.response("sw")
	rc.send(`{"id":"st3","type":"get_state"}`)
	if st3 := rc.response("st3")["data"].(map[string]any); st3["sessionId"] != st["sessionId"] || st3["messageCount"].(float64) < 5 {
		t.Errorf("switched state: %v", st3)
	}

	rc.send(`not json`)
	if r := rc.until("parse error", func(r map[string]any) bool { return r["command"] == "parse" }); r["success"] != false {
		t.Errorf("parse: %v", r)
	}
	rc.in.Close()
	select {
	case code := <-rc.done:
		if code != 0 {
			t.Errorf("exit %d after EOF", code)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("pi did not exit after EOF")
	}
	files, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 2 {
		t.Errorf("want the first and the new session file, got %v", files)
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// trustProject marks proj as trusted, as `pi trust DIR` does.
func trustProject(t *testing.T, c *cli, proj string) {
	t.Helper()
	if _, errs, code := c.run("trust", proj); code != 0 {
		t.Fatalf("pi trust: %s", errs)
	}
}
