//go:build unix

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// In print mode nobody can answer: an extension's questions get their
// default answers at once (no choice, no text, not confirmed) and pi never
// waits.
func TestExtensionQuestionsTakeDefaultsInPrintMode(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", nil) // never asked: nothing is sent
	out, errs, code := c.run("-p", "--no-session", "--cwd", t.TempDir(), "-e", examplePlugin(t, "greeter"), "/greet")
	if code != 0 || !strings.Contains(out, "greet: no tone chosen, nothing sent") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("the model got %d requests", n)
	}
}

// Over RPC an extension's questions are extension_ui_request records,
// answered with extension_ui_response, as in the established harness's
// extension-UI protocol; the answers reach the guest.
func TestExtensionQuestionsOverRPC(t *testing.T) {
	c := newCLI(t)
	srv := scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "Hi Ada!"}})
	rc := startRPC(t, c, "--no-session", "--cwd", t.TempDir(), "-e", examplePlugin(t, "greeter"))
	rc.send(`{"id":"p1","type":"prompt","message":"/greet"}`)
	answer := func(method, reply string) map[string]any {
		t.Helper()
		q := rc.event("extension_ui_request")
		if q["method"] != method || !strings.HasPrefix(q["title"].(string), "[greeter] ") {
			t.Fatalf("want a %s question from greeter, got %v", method, q)
		}
		if to, _ := q["timeout"].(float64); to <= 0 || to > 60000 {
			t.Errorf("timeout %v", q["timeout"])
		}
		rc.send(`{"type":"extension_ui_response","id":"` + q["id"].(string) + `",` + reply + `}`)
		return q
	}
	sel := answer("select", `"value":"casual"`)
	if opts := sel["options"].([]any); len(opts) != 2 || opts[1] != "casual" {
		t.Fatalf("options %v", sel["options"])
	}
	answer("input", `"value":"Ada"`)
	answer("confirm", `"confirmed":true`)
	n := rc.event("extension_ui_request")
	if n["method"] != "notify" || n["notifyType"] != "info" || !strings.Contains(n["message"].(string), "casual greeting for Ada") {
		t.Fatalf("notify %v", n)
	}
	rc.event("agent_settled")
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), "Write a short casual greeting for Ada.") {
		t.Fatalf("the model got %d requests: %s", len(reqs), reqs)
	}

	// A cancelled dialog is the default answer.
	rc.send(`{"id":"p2","type":"prompt","message":"/greet"}`)
	answer("select", `"cancelled":true`)
	rc.until("the command's answer", func(r map[string]any) bool {
		m, _ := r["message"].(string)
		return strings.Contains(m, "no tone chosen")
	})
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("a cancelled greeting reached the model (%d requests)", n)
	}
}

// In the interactive session an extension's questions are dialogs naming
// the extension; the person's answers reach the guest.
func TestExtensionQuestionsInTheUI(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	srv := scriptedModel(t, c, "anthropic-messages", []scripted.Reply{{Text: "Hey Ada, good to see you."}})
	tm := startTerminal(t, c, proj, "--fullscreen", "--cwd", proj, "-e", examplePlugin(t, "greeter"))
	tm.waitFor("Ask pi")
	tm.typeLine("/greet")
	tm.waitFor("[greeter] Which tone?")
	tm.press("\x1b[B") // down: casual
	time.Sleep(100 * time.Millisecond)
	tm.press("\r")
	tm.waitFor("[greeter] Whom to greet?")
	tm.typeLine("Ada")
	tm.waitFor("A casual greeting for Ada")
	tm.press("y")
	tm.waitFor("Hey Ada, good to see you.")
	tm.waitFor("[greeter] sending a casual greeting for Ada")
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), "Write a short casual greeting for Ada.") {
		t.Fatalf("the model got %d requests", len(reqs))
	}
}
