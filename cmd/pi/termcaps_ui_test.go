//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// output is every byte pi has written so far.
func (tm *terminal) output() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return string(tm.raw)
}

// waitForOutput waits until pi has written want (a sequence the screen
// does not show).
func (tm *terminal) waitForOutput(want string) {
	tm.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(tm.output(), want) {
		if time.Now().After(deadline) {
			tm.t.Fatalf("pi never wrote %q; the screen shows:\n%s", want, tm.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// terminalRun runs one interactive turn in a pseudo-terminal with env and
// settings.json: the message attaches a PNG (@dot.png), the model reads
// it, then replies with a link and a Go code block. It returns all pi wrote and whether OSC 9;4 progress was on
// while the read ran (before the reply came).
func terminalRun(t *testing.T, env []string, settingsJSON string) (out, during string) {
	t.Helper()
	c := newCLI(t)
	proj := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 36, 36))
	for i := range 36 {
		img.Set(i, i, color.RGBA{200, 30, 30, 255})
	}
	var pngData bytes.Buffer
	png.Encode(&pngData, img)
	writeFiles(t, proj, map[string]string{"dot.png": pngData.String()})
	scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "r1", Name: "read", Args: json.RawMessage(`{"path":"dot.png"}`)}}},
		{Text: "See [the guide](https://example.com/guide).\n\n```go\nfunc main() { println(\"hi\") }\n```\n\nAll read."},
	})
	writeFiles(t, c.agentDir, map[string]string{"settings.json": settingsJSON})
	tm := startTerminalEnv(t, c, proj, append([]string{
		// No terminal of the test's own environment leaks in.
		"TERM_PROGRAM=", "TERM_PROGRAM_VERSION=", "KITTY_WINDOW_ID=", "ITERM_SESSION_ID=", "WEZTERM_PANE=", "GHOSTTY_RESOURCES_DIR=",
		"WT_SESSION=", "TMUX=", "COLORTERM=", "ALACRITTY_WINDOW_ID=", "WARP_SESSION_ID=", "TERMINAL_EMULATOR=",
		"PI_IMAGE_PROTOCOL=", "PI_HYPERLINKS=", "PI_TRUE_COLOR=", "PI_PROGRAM_STATUS=",
	}, env...), "--cwd", proj, "@dot.png", "look at dot.png")
	tm.waitFor("All read.")
	during = tm.output()
	tm.press("\x04")
	if !tm.exited(30 * time.Second) {
		t.Fatalf("ctrl+d did not quit:\n%s", tm.screen())
	}
	return tm.output(), during
}

// With an iTerm2 terminal (TERM_PROGRAM=iTerm.app), the picture the read
// tool returns is drawn with iTerm2's sequence, links and the read's path
// are OSC 8 links;
// terminal.showTerminalProgress shows OSC
// 9;4 while the agent works and clears it; PI_PROGRAM_STATUS=1 reports the
// program's state. The same terminal with the settings turned off gets
// none of them.
func TestTerminalCapabilitiesITerm2(t *testing.T) {
	on, during := terminalRun(t, []string{"TERM_PROGRAM=iTerm.app", "NO_COLOR=", "PI_PROGRAM_STATUS=1"},
		`{"terminal":{"showTerminalProgress":true}}`)
	if n := strings.Count(on, "\x1b]1337;File=inline=1;"); n != 2 {
		t.Errorf("%d iTerm2 images, want 2 (the attachment and the read's)", n)
	}
	for _, want := range []string{
		"https://example.com/guide",      // the link's address
		"\x1b]8;",                        // an OSC 8 link
		"/dot.png\x1b\\",                 // the read's path linked (file://…/dot.png)
		"\x1b]9;4;3\x07",                 // progress while working
		"\x1b]7501;state=working:app=pi", // program status
	} {
		if !strings.Contains(on, want) {
			t.Errorf("pi did not write %q", want)
		}
	}
	if i := strings.LastIndex(on, "\x1b]9;4;0\x07"); i < strings.LastIndex(on, "\x1b]9;4;3\x07") {
		t.Errorf("the progress was not cleared when the agent stopped")
	}
	if !strings.Contains(during, "\x1b]9;4;3\x07") {
		t.Errorf("no progress while the agent worked")
	}

	off, _ := terminalRun(t, []string{"TERM_PROGRAM=iTerm.app", "NO_COLOR="},
		`{"terminal":{"showImages":false,"hyperlinks":false}}`)
	for _, unwanted := range []string{"\x1b]1337;File=", "\x1b]8;", "\x1b]9;4;", "\x1b]7501;state="} {
		if strings.Contains(off, unwanted) {
			t.Errorf("with the settings off pi still wrote %q", unwanted)
		}
	}
	if !strings.Contains(off, "Image dot.png") && !strings.Contains(off, "dot.png") {
		t.Errorf("the read's text is missing")
	}
}

// PI_IMAGE_PROTOCOL=kitty in a terminal pi does not recognise draws the
// picture with the kitty graphics protocol; PI_HYPERLINKS=1 makes the
// link an OSC 8 link. An unrecognised terminal without them gets neither.
func TestTerminalOverridesFromEnvironment(t *testing.T) {
	on, _ := terminalRun(t, []string{"PI_IMAGE_PROTOCOL=kitty", "PI_HYPERLINKS=1"}, `{}`)
	if !strings.Contains(on, "\x1b_Ga=T,f=100,q=2,C=1,") {
		t.Errorf("no kitty image sequence")
	}
	if !strings.Contains(on, "\x1b]8;") {
		t.Errorf("no OSC 8 link")
	}
	plain, _ := terminalRun(t, nil, `{}`)
	for _, unwanted := range []string{"\x1b_G", "\x1b]1337;", "\x1b]8;"} {
		if strings.Contains(plain, unwanted) {
			t.Errorf("an unknown terminal got %q", unwanted)
		}
	}
}
