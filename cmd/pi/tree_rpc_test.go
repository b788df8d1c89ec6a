//go:build unix

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/internal/scripted"
)

// startRPCBinary runs the pi binary (this test binary as pi) in RPC mode
// in dir, talking over its real stdin and stdout.
func startRPCBinary(t *testing.T, c *cli, dir string, args ...string) *rpcClient {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--mode", "rpc"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PI_TEST_AS_PI=1", "PI_CODING_AGENT_DIR="+c.agentDir, "HOME="+c.home)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rc := &rpcClient{t: t, in: in, records: make(chan map[string]any, 1024), done: make(chan int, 1)}
	go rc.read(out, func() {
		cmd.Wait()
		rc.done <- cmd.ProcessState.ExitCode()
	})
	t.Cleanup(func() {
		in.Close()
		select {
		case <-rc.done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	})
	return rc
}

// failure waits for the response id and returns its error (the test fails
// when it succeeded).
func (rc *rpcClient) failure(id string) string {
	rc.t.Helper()
	r := rc.until("response "+id, func(r map[string]any) bool { return r["type"] == "response" && r["id"] == id })
	if r["success"] != false {
		rc.t.Fatalf("%s succeeded: %v", id, r)
	}
	return r["error"].(string)
}

func data(r map[string]any) map[string]any {
	d, _ := r["data"].(map[string]any)
	return d
}

// TestRPCSessionTree drives the session commands over the binary's
// stdin/stdout as an editor would: a named session, the tree and entries,
// a move back with a branch summary and a label, a rename, statistics, a
// fork from the first message and a clone.
func TestRPCSessionTree(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	srv := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "One."},
		{Text: "Two."},
		{Text: "## Goal\nTried the second approach."},
		{Text: "Three."},
	})
	rc := startRPCBinary(t, c, proj, "--name", "tree work")
	for i, text := range []string{"first", "second"} {
		id := "p" + string(rune('1'+i))
		rc.send(`{"id":"` + id + `","type":"prompt","message":"` + text + `"}`)
		rc.response(id)
		rc.event("agent_settled")
	}
	rc.send(`{"id":"st","type":"get_state"}`)
	st := data(rc.response("st"))
	if st["sessionName"] != "tree work" {
		t.Errorf("--name: state %v", st)
	}
	file := st["sessionFile"].(string)

	rc.send(`{"id":"fm","type":"get_fork_messages"}`)
	fm := data(rc.response("fm"))["messages"].([]any)
	if len(fm) != 2 || fm[1].(map[string]any)["text"] != "second" {
		t.Fatalf("fork messages %v", fm)
	}
	first := fm[0].(map[string]any)["entryId"].(string)
	second := fm[1].(map[string]any)["entryId"].(string)

	rc.send(`{"id":"gt","type":"get_tree"}`)
	gt := data(rc.response("gt"))
	roots := gt["tree"].([]any)
	if len(roots) != 1 || gt["leafId"] == nil {
		t.Fatalf("tree %v", gt)
	}
	rc.send(`{"id":"ge","type":"get_entries"}`)
	ge := data(rc.response("ge"))
	entries := ge["entries"].([]any)
	lastSeen := entries[len(entries)-1].(map[string]any)["id"].(string)
	if ge["leafId"] != lastSeen {
		t.Errorf("leafId %v, last entry %s", ge["leafId"], lastSeen)
	}

	// Back to the second message with a summary of what is left behind.
	rc.send(`{"id":"nav","type":"navigate_tree","targetId":"` + second + `","summarize":true,"label":"retry"}`)
	nav := data(rc.response("nav"))
	if nav["editorText"] != "second" {
		t.Errorf("editor text %v", nav)
	}
	se, _ := nav["summaryEntry"].(map[string]any)
	if se == nil || se["type"] != "branch_summary" || se["fromId"] != lastSeen ||
		!strings.HasPrefix(se["summary"].(string), "The user explored a different conversation branch") {
		t.Fatalf("summary entry %v", se)
	}
	if reqs := srv.Requests(); len(reqs) != 3 || !strings.Contains(string(reqs[2]), "Two.") {
		t.Errorf("no summary request sent (%d requests)", len(reqs))
	}
	rc.send(`{"id":"ge2","type":"get_entries","since":"` + lastSeen + `"}`)
	newer := data(rc.response("ge2"))["entries"].([]any)
	if len(newer) != 2 || newer[0].(map[string]any)["type"] != "branch_summary" || newer[1].(map[string]any)["label"] != "retry" {
		t.Errorf("entries since the move: %v", newer)
	}
	rc.send(`{"id":"p3","type":"prompt","message":"third"}`)
	rc.response("p3")
	rc.event("agent_settled")
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1])
	if !strings.Contains(last, "Tried the second approach.") || strings.Contains(last, "Two.") {
		t.Errorf("the request after the move does not carry the summary in place of the branch: %s", last)
	}

	rc.send(`{"id":"nm","type":"set_session_name","name":"renamed"}`)
	rc.response("nm")
	var changed map[string]any
	for _, r := range rc.seen {
		if r["type"] == "session_info_changed" {
			changed = r
		}
	}
	if changed == nil || changed["name"] != "renamed" {
		t.Errorf("no session_info_changed before the response: %v", changed)
	}
	rc.send(`{"id":"nm2","type":"set_session_name","name":"  "}`)
	if e := rc.failure("nm2"); e != "Session name cannot be empty" {
		t.Errorf("empty name: %s", e)
	}
	rc.send(`{"id":"ss","type":"get_session_stats"}`)
	ss := data(rc.response("ss"))
	if ss["userMessages"].(float64) != 3 || ss["assistantMessages"].(float64) != 3 || ss["sessionFile"] != file {
		t.Errorf("stats %v", ss)
	}
	if tok := ss["tokens"].(map[string]any); tok["input"].(float64) < 300 {
		t.Errorf("tokens %v", tok)
	}

	// Errors keep the session where it was.
	rc.send(`{"id":"bad","type":"get_entries","since":"nope"}`)
	rc.failure("bad")
	rc.send(`{"id":"fbad","type":"fork","entryId":"` + lastSeen + `"}`)
	rc.failure("fbad")

	// A fork from the first message: an empty session naming its parent.
	rc.send(`{"id":"fk","type":"fork","entryId":"` + first + `"}`)
	if fk := data(rc.response("fk")); fk["text"] != "first" || fk["cancelled"] != false {
		t.Errorf("fork %v", fk)
	}
	rc.send(`{"id":"st2","type":"get_state"}`)
	st2 := data(rc.response("st2"))
	forked := st2["sessionFile"].(string)
	if forked == file || st2["messageCount"].(float64) != 0 {
		t.Errorf("after the fork: %v", st2)
	}
	tr, err := session.Load(forked)
	if err != nil || tr.Header.ParentSession != file {
		t.Fatalf("forked file: %v %+v", err, tr)
	}

	// Back to the original, then a clone of its active branch.
	rc.send(`{"id":"sw","type":"switch_session","sessionPath":` + jsonQuote(file) + `}`)
	rc.response("sw")
	rc.send(`{"id":"gm","type":"get_messages"}`)
	before := len(data(rc.response("gm"))["messages"].([]any))
	rc.send(`{"id":"cl","type":"clone"}`)
	rc.response("cl")
	rc.send(`{"id":"gm2","type":"get_messages"}`)
	if after := len(data(rc.response("gm2"))["messages"].([]any)); after != before || after == 0 {
		t.Errorf("clone has %d messages, the original %d", after, before)
	}
	rc.send(`{"id":"st3","type":"get_state"}`)
	st3 := data(rc.response("st3"))
	cl, err := session.Load(st3["sessionFile"].(string))
	if err != nil || cl.Header.ParentSession != file || cl.Name() != "renamed" {
		t.Errorf("clone file: %v %+v name %q", err, cl.Header, cl.Name())
	}
}
