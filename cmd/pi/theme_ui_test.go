//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/piwasm/pi/core/theme"
	"github.com/piwasm/pi/internal/scripted"
)

// oceanTheme is a custom theme: the dark built-in one with the user
// message's colours replaced.
func oceanTheme(t *testing.T) string {
	t.Helper()
	d, _ := theme.Builtin("dark")
	colors := map[string]any{}
	for _, r := range theme.Roles() {
		if c := d.Color(r).Spec(); c != "" || r == "text" {
			colors[r] = c
		} else {
			colors[r] = ""
		}
	}
	colors["userMessageText"] = "coral"
	colors["userMessageBg"] = "#102030"
	b, _ := json.Marshal(map[string]any{"name": "ocean", "vars": map[string]any{"coral": "#ff8800"}, "colors": colors})
	return string(b)
}

// cellColors finds text on the screen and returns the colours of its
// first cell.
func (tm *terminal) cellColors(text string) (fg, bg color.Color) {
	tm.t.Helper()
	tm.mu.Lock()
	defer tm.mu.Unlock()
	for y, line := range strings.Split(tm.emu.String(), "\n") {
		if i := strings.Index(line, text); i >= 0 {
			x := len([]rune(line[:i]))
			c := tm.emu.CellAt(x, y)
			if c == nil {
				tm.t.Fatalf("no cell at %d,%d", x, y)
			}
			return c.Style.Fg, c.Style.Bg
		}
	}
	tm.t.Fatalf("%q is not on the screen", text)
	return nil, nil
}

func hexOf(c color.Color) string {
	if c == nil {
		return "none"
	}
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// TestThemeColoursReachTheScreen: a theme from the agent dir's themes/
// chosen by the theme setting colours the user's message as its file
// says (true colour); --use-theme light replaces it for one run without
// touching settings.json; a 256-colour terminal gets the nearest palette
// colour; a broken theme file is reported with its path.
func TestThemeColoursReachTheScreen(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	writeFiles(t, c.agentDir, map[string]string{
		"themes/ocean.json":  oceanTheme(t),
		"themes/broken.json": `{"name": "broken", "colors": {"accent": "nowhere"}}`,
		"settings.json":      `{"theme": "ocean"}`,
	})
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "Noted."}, {Text: "Noted again."}, {Text: "Noted thrice."}, {Text: "Noted four times."}})
	colour := []string{"NO_COLOR=", "COLORTERM=truecolor"}

	tm := startTerminalEnv(t, c, proj, colour, "--cwd", proj)
	s := tm.waitFor("Ask pi")
	if !strings.Contains(squeeze(s), squeeze(filepath.Join(c.agentDir, "themes", "broken.json"))) || !strings.Contains(s, "missing") {
		t.Errorf("the broken theme is not reported with its file:\n%s", s)
	}
	tm.typeLine("hello ocean")
	tm.waitFor("Noted.")
	fg, bg := tm.cellColors("hello ocean")
	if hexOf(fg) != "#ff8800" || hexOf(bg) != "#102030" {
		t.Errorf("ocean's user message: fg %s bg %s, want #ff8800 on #102030", hexOf(fg), hexOf(bg))
	}
	tm.press("\x03")
	tm.press("\x03")
	tm.exited(30 * time.Second)

	light, _ := theme.Builtin("light")
	tm = startTerminalEnv(t, c, proj, colour, "--cwd", proj, "--use-theme", "light")
	tm.waitFor("Ask pi")
	tm.typeLine("hello light")
	tm.waitFor("Noted again.")
	if _, bg := tm.cellColors("hello light"); hexOf(bg) != light.Color("userMessageBg").Hex() {
		t.Errorf("--use-theme light: user message background %s, want %s", hexOf(bg), light.Color("userMessageBg").Hex())
	}
	tm.press("\x03")
	tm.press("\x03")
	tm.exited(30 * time.Second)
	if data, _ := os.ReadFile(filepath.Join(c.agentDir, "settings.json")); string(data) != `{"theme": "ocean"}` {
		t.Errorf("--use-theme changed settings.json: %s", data)
	}

	// Without true colour (none detected, or PI_TRUE_COLOR=0 over
	// COLORTERM): the nearest of the 256, never the exact value.
	for _, env := range [][]string{{"NO_COLOR=", "COLORTERM="}, {"NO_COLOR=", "COLORTERM=truecolor", "PI_TRUE_COLOR=0"}} {
		tm = startTerminalEnv(t, c, proj, env, "--cwd", proj)
		tm.waitFor("Ask pi")
		tm.typeLine("hello palette")
		tm.waitFor("Noted")
		if _, bg := tm.cellColors("hello palette"); bg == nil {
			t.Errorf("%v: no background on a 256-colour terminal", env)
		} else if _, ok := bg.(ansi.IndexedColor); !ok {
			t.Errorf("%v: a 256-colour terminal got %T %s, want a palette index", env, bg, hexOf(bg))
		}
		tm.press("\x03")
		tm.press("\x03")
		tm.exited(30 * time.Second)
	}
}
