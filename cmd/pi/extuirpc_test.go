package main

import (
	"strings"
	"testing"
)

// TestRPCEditorAndStatus: the status-note example, run over RPC, sets its
// status entry (setStatus, fire and forget), opens an editor (an
// extension_ui_request with the established harness's editor shape:
// title and prefill, no timeout), gets the client's text back, and keeps
// the note's first line as its status and window title (setTitle); a
// cancelled editor clears the entry (setStatus without statusText);
// /draft fills the client's editor (set_editor_text).
func TestRPCEditorAndStatus(t *testing.T) {
	c := newCLI(t)
	ext := examplePlugin(t, "status-note")
	scriptedModel(t, c, "openai-completions", nil) // never asked: the extension handles the command
	rc := startRPC(t, c, "--no-extensions", "-e", ext)
	ui := func(method string) map[string]any {
		t.Helper()
		return rc.until(method, func(r map[string]any) bool { return r["type"] == "extension_ui_request" && r["method"] == method })
	}
	rc.send(`{"id":"n","type":"prompt","message":"/note first draft"}`)
	if st := ui("setStatus"); st["statusKey"] != "status-note" || st["statusText"] != "writing a note…" || len(st) != 5 {
		t.Fatalf("setStatus: %v", st)
	}
	ed := ui("editor")
	if ed["title"] != "[status-note] Note for this session" || ed["prefill"] != "first draft" || len(ed) != 5 {
		t.Fatalf("editor request: %v", ed)
	}
	rc.send(`{"type":"extension_ui_response","id":"` + ed["id"].(string) + `","value":"Buy milk\nand bread"}`)
	if st := ui("setStatus"); st["statusKey"] != "status-note" || st["statusText"] != "note: Buy milk" {
		t.Fatalf("setStatus after the editor: %v", st)
	}
	if ti := ui("setTitle"); ti["title"] != "pi — note: Buy milk" || len(ti) != 4 {
		t.Fatalf("setTitle: %v", ti)
	}
	if w := ui("setWidget"); w["widgetKey"] != "status-note" || w["widgetPlacement"] != "belowEditor" || toJSON(w["widgetLines"]) != `["Buy milk","and bread"]` {
		t.Fatalf("setWidget: %v", w)
	}
	if n := ui("notify"); n["message"] != "noted: Buy milk" {
		t.Fatalf("the guest did not get the edited text: %v", n)
	}
	if d := rc.response("n")["data"].(map[string]any)["disposition"]; d != "handled" {
		t.Fatalf("disposition %v", d)
	}

	rc.send(`{"id":"c","type":"prompt","message":"/note"}`)
	ui("setStatus")
	ed = ui("editor")
	if _, ok := ed["prefill"]; ok {
		t.Fatalf("an empty prefill was sent: %v", ed)
	}
	rc.send(`{"type":"extension_ui_response","id":"` + ed["id"].(string) + `","cancelled":true}`)
	if st := ui("setStatus"); st["statusKey"] != "status-note" || len(st) != 4 {
		t.Fatalf("a cleared status: %v", st)
	}
	if w := ui("setWidget"); w["widgetKey"] != "status-note" || len(w) != 4 {
		t.Fatalf("a removed widget: %v", w)
	}
	rc.response("c")

	rc.send(`{"id":"d","type":"prompt","message":"/draft Please review the change"}`)
	if et := ui("set_editor_text"); et["text"] != "Please review the change" || len(et) != 4 {
		t.Fatalf("set_editor_text: %v", et)
	}
	rc.response("d")
	rc.in.Close()
}

// TestPrintEditorDefault: in print mode there is nobody to ask: the
// editor gets no answer at once and the status entry is not shown.
func TestPrintEditorDefault(t *testing.T) {
	c := newCLI(t)
	ext := examplePlugin(t, "status-note")
	scriptedModel(t, c, "openai-completions", nil)
	out, errs, code := c.run("-p", "--no-session", "--no-extensions", "-e", ext, "/note draft")
	if code != 0 || !strings.Contains(out+errs, "no note taken") || strings.Contains(out+errs, "writing a note") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}
