//go:build unix && !noui

package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// footerLine is the screen's last non-empty line: the footer, with the
// model in use.
func footerLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	return lines[len(lines)-1]
}

// TestKeybindingsFileInTheTerminal: keybindings.json moves an action to
// another key (the new key does it, the old one no longer), [] leaves one
// without a key, and entries pi cannot use are reported with the file
// and the nearest id, at start-up and by pi resources.
func TestKeybindingsFileInTheTerminal(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	s := &scripted.Server{Fallback: "ok"}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	file := filepath.Join(c.agentDir, "keybindings.json")
	writeFiles(t, c.agentDir, map[string]string{
		"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"},{"id":"mock-2"}]}}}`,
		"keybindings.json": `{
  "app.model.cycleForward": "alt+m",
  "app.model.select": [],
  "app.mesage.dequeue": "alt+d",
  "app.exit": "Ctrl+Q"
}`,
	})
	if out, _, _ := c.run("resources", "--cwd", proj); !strings.Contains(out, file+":4") || !strings.Contains(out, "did you mean app.message.dequeue?") {
		t.Errorf("pi resources does not report the unknown action:\n%s", out)
	}

	tm := startTerminal(t, c, proj, "--cwd", proj, "--model", "mock/mock-1")
	tm.waitFor(`unknown action "app.mesage.dequeue" (did you mean app.message.dequeue?)`)
	tm.waitFor(`app.exit: "Ctrl+Q" is not a key`)
	tm.waitFor("Ask pi")

	tm.press("\x10") // ctrl+p: no longer the next model
	time.Sleep(50 * time.Millisecond)
	tm.press("\x0c") // ctrl+l: the model picker, disabled
	time.Sleep(50 * time.Millisecond)
	// /hotkeys answers only once the keys before it were handled, and
	// only if no dialog took them.
	tm.typeLine("/hotkeys")
	screen := tm.waitFor("*alt+m")
	if strings.Contains(screen, "Use which model?") {
		t.Fatalf("ctrl+l still opens the model picker:\n%s", screen)
	}
	if !strings.Contains(footerLine(screen), "mock/mock-1") {
		t.Fatalf("ctrl+p still cycles the model:\n%s", screen)
	}
	if !strings.Contains(squeeze(screen), squeeze("Without a key: tui.editor.historyPrevious, tui.editor.historyNext, app.model.select")) {
		t.Errorf("/hotkeys does not list app.model.select as without a key:\n%s", screen)
	}
	tm.press("\x1bm") // alt+m: the next model now
	tm.waitFor("model: mock/mock-2")

	// /reload reads the file again: ctrl+p is back.
	writeFiles(t, c.agentDir, map[string]string{"keybindings.json": `{}`})
	tm.typeLine("/reload")
	tm.waitFor("reloaded")
	time.Sleep(50 * time.Millisecond)
	tm.press("\x10")
	tm.waitFor("model: mock/mock-1")
	if n := len(s.Requests()); n != 0 {
		t.Errorf("keys reached the model: %d requests", n)
	}
}

// TestAltUpRestoresQueuedMessages: while pi works, alt+up takes the queued
// messages (steering and follow-ups) back into the editor: the run goes on
// without them, and they are sent when the person sends the editor.
func TestAltUpRestoresQueuedMessages(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	gate := filepath.Join(t.TempDir(), "go")
	srv := scriptedModel(t, c, "anthropic-messages", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "bash", Args: json.RawMessage(`{"command":"while [ ! -e ` + gate + ` ]; do sleep 0.05; done; echo step"}`)}}},
		{Text: "Task done."},
		{Text: "Got the restored ones."},
	})
	tm := startTerminal(t, c, proj, "--cwd", proj)
	tm.waitFor("Ask pi")
	tm.typeLine("start the task")
	tm.waitFor("● bash while")
	tm.press("later one")
	time.Sleep(50 * time.Millisecond)
	tm.press("\x1b\r") // alt+enter: a follow-up
	tm.waitFor("later one")
	tm.typeLine("steer one")
	time.Sleep(50 * time.Millisecond)
	tm.press("\x1b[1;3A") // alt+up
	tm.waitFor("restored 2 queued messages to the editor")
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("Task done.")
	reqs := srv.Requests()
	if len(reqs) != 2 || strings.Contains(string(reqs[1]), "steer one") || strings.Contains(string(reqs[1]), "later one") {
		t.Fatalf("the restored messages were still sent (%d requests)", len(reqs))
	}
	tm.press("\r")
	tm.waitFor("Got the restored ones.")
	last := string(srv.Requests()[2])
	if !strings.Contains(last, `steer one\n\nlater one`) {
		t.Errorf("the editor did not send the restored messages, steering first: %s", last)
	}
}

// TestCtrlVPastesAnImage: with an image on the clipboard (a stand-in
// xclip hands it over), ctrl+v puts a file path in the editor and the
// next message carries the image, as an @file image would.
func TestCtrlVPastesAnImage(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	s := &scripted.Server{Replies: []scripted.Reply{{Text: "A red square."}}}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1","input":["text","image"]}]}}}`})
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range 16 {
		img.Set(i%4, i/4, color.RGBA{255, 0, 0, 255})
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	bin := t.TempDir()
	pic := filepath.Join(bin, "clip.png")
	writeFiles(t, bin, map[string]string{
		"clip.png": buf.String(),
		"xclip": "#!/bin/sh\ncase \"$*\" in\n\"-selection clipboard -t TARGETS -o\") printf 'TARGETS\\nUTF8_STRING\\nimage/png\\n';;\n" +
			"\"-selection clipboard -t image/png -o\") cat " + pic + ";;\n*) exit 1;;\nesac\n",
	})
	os.Chmod(filepath.Join(bin, "xclip"), 0o755)

	tm := startTerminalEnv(t, c, proj, []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "WAYLAND_DISPLAY=", "XDG_SESSION_TYPE=x11", "TMPDIR=" + t.TempDir()}, "--cwd", proj, "--model", "mock/mock-1")
	tm.waitFor("Ask pi")
	tm.press("what is this? ")
	tm.press("\x16") // ctrl+v
	tm.waitFor("pi-clipboard-")
	tm.press("\r")
	tm.waitFor("A red square.")
	req := string(s.Requests()[0])
	want := "data:image/png;base64," + base64Of(buf.Bytes())
	if !strings.Contains(req, want) || !strings.Contains(req, "what is this? ") {
		t.Errorf("the request does not carry the pasted image:\n%.600s", req)
	}
}

func base64Of(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
