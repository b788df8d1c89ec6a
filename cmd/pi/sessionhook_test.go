//go:build unix

package main

import (
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// TestSessionHooksLog: with the session-log example loaded, a print run
// tells it the session started (reason startup) and, as pi exits, that it
// ended (reason quit); its log lines reach stderr with --verbose.
func TestSessionHooksLog(t *testing.T) {
	c := newCLI(t)
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "Hi."}})
	ext := examplePlugin(t, "session-log")
	out, stderr, code := c.run("-p", "--verbose", "--no-extensions", "-e", ext, "hello")
	if code != 0 || !strings.Contains(out, "Hi.") {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
	start := strings.Index(stderr, "[session-log] info: session_start startup")
	end := strings.Index(stderr, "[session-log] info: session_shutdown quit")
	if start < 0 || end < start {
		t.Fatalf("no session_start then session_shutdown in the log:\n%s", stderr)
	}
}

// TestSessionHooksCancel: session-log configured to refuse /new and /clone
// keeps the current session through RPC new_session and clone (answered
// cancelled: true, not an error), while a fork, which it allows, goes on.
func TestSessionHooksCancel(t *testing.T) {
	c := newCLI(t)
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "One."}})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"extensionConfig":{"session-log":{"refuse":["new","clone"]}}}`})
	ext := examplePlugin(t, "session-log")
	rc := startRPCBinary(t, c, t.TempDir(), "--no-extensions", "-e", ext)
	rc.send(`{"id":"p1","type":"prompt","message":"first"}`)
	rc.response("p1")
	rc.event("agent_settled")
	rc.send(`{"id":"st","type":"get_state"}`)
	file := data(rc.response("st"))["sessionFile"]

	for _, cmd := range []string{"new_session", "clone"} {
		rc.send(`{"id":"` + cmd + `","type":"` + cmd + `"}`)
		if d := data(rc.response(cmd)); d["cancelled"] != true {
			t.Errorf("%s not cancelled: %v", cmd, d)
		}
		rc.send(`{"id":"s-` + cmd + `","type":"get_state"}`)
		if st := data(rc.response("s-" + cmd)); st["sessionFile"] != file || st["messageCount"].(float64) != 2 {
			t.Errorf("%s changed the session: %v", cmd, st)
		}
	}

	rc.send(`{"id":"fm","type":"get_fork_messages"}`)
	entry := data(rc.response("fm"))["messages"].([]any)[0].(map[string]any)["entryId"].(string)
	rc.send(`{"id":"fk","type":"fork","entryId":"` + entry + `"}`)
	if d := data(rc.response("fk")); d["cancelled"] != false || d["text"] != "first" {
		t.Errorf("fork: %v", d)
	}
	rc.send(`{"id":"s-fk","type":"get_state"}`)
	if st := data(rc.response("s-fk")); st["sessionFile"] == file {
		t.Errorf("the fork did not happen: %v", st)
	}
}
