package termcaps

import (
	"encoding/json"
	"testing"

	"github.com/charmbracelet/colorprofile"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func settingsOf(m map[string]string) Lookup {
	return func(name string) (json.RawMessage, bool) {
		v, ok := m[name]
		return json.RawMessage(v), ok
	}
}

func TestDetection(t *testing.T) {
	noTmux := func() bool { return false }
	yesTmux := func() bool { return true }
	cases := []struct {
		name string
		env  map[string]string
		goos string
		tmux func() bool
		want Caps
	}{
		{"unknown terminal", map[string]string{"TERM": "xterm-256color"}, "linux", noTmux, Caps{}},
		{"COLORTERM truecolor", map[string]string{"TERM": "xterm-256color", "COLORTERM": "truecolor"}, "linux", noTmux, Caps{TrueColor: true}},
		{"COLORTERM 24bit", map[string]string{"COLORTERM": "24BIT"}, "linux", noTmux, Caps{TrueColor: true}},
		{"TERM -direct", map[string]string{"TERM": "xterm-direct"}, "linux", noTmux, Caps{TrueColor: true}},
		{"kitty", map[string]string{"KITTY_WINDOW_ID": "1"}, "linux", noTmux, Caps{true, true, Kitty}},
		{"kitty by TERM_PROGRAM", map[string]string{"TERM_PROGRAM": "kitty"}, "darwin", noTmux, Caps{true, true, Kitty}},
		{"ghostty", map[string]string{"TERM": "xterm-ghostty"}, "linux", noTmux, Caps{true, true, Kitty}},
		{"wezterm", map[string]string{"WEZTERM_PANE": "3"}, "linux", noTmux, Caps{true, true, Kitty}},
		{"warp", map[string]string{"TERM_PROGRAM": "WarpTerminal"}, "darwin", noTmux, Caps{true, true, Kitty}},
		{"orca without its protocol", map[string]string{"TERM_PROGRAM": "orca"}, "linux", noTmux, Caps{}},
		{"orca with kitty", map[string]string{"TERM_PROGRAM": "orca", "ORCA_IMAGE_PROTOCOL": "kitty"}, "linux", noTmux, Caps{true, true, Kitty}},
		{"herdr beats a leaked kitty id", map[string]string{"TERM_PROGRAM": "herdr", "KITTY_WINDOW_ID": "1"}, "linux", noTmux, Caps{Hyperlinks: true, Images: Kitty}},
		{"iTerm2", map[string]string{"TERM_PROGRAM": "iTerm.app"}, "darwin", noTmux, Caps{true, true, ITerm2}},
		{"iTerm2 by session", map[string]string{"ITERM_SESSION_ID": "w0t0p0"}, "darwin", noTmux, Caps{true, true, ITerm2}},
		{"Windows Terminal", map[string]string{"WT_SESSION": "x"}, "windows", noTmux, Caps{TrueColor: true, Hyperlinks: true}},
		{"VS Code", map[string]string{"TERM_PROGRAM": "vscode"}, "linux", noTmux, Caps{TrueColor: true, Hyperlinks: true}},
		{"alacritty", map[string]string{"ALACRITTY_WINDOW_ID": "1"}, "linux", noTmux, Caps{TrueColor: true, Hyperlinks: true}},
		{"JetBrains", map[string]string{"TERMINAL_EMULATOR": "JetBrains-JediTerm"}, "linux", noTmux, Caps{TrueColor: true}},
		{"a Windows console", map[string]string{}, "windows", noTmux, Caps{TrueColor: true}},
		{"tmux inside kitty: no images", map[string]string{"TMUX": "/tmp/t", "KITTY_WINDOW_ID": "1"}, "linux", noTmux, Caps{}},
		{"tmux forwarding links", map[string]string{"TMUX": "/tmp/t", "COLORTERM": "truecolor"}, "linux", yesTmux, Caps{TrueColor: true, Hyperlinks: true}},
		{"screen", map[string]string{"TERM": "screen-256color", "TERM_PROGRAM": "iTerm.app"}, "linux", yesTmux, Caps{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Resolve(Env{Getenv: envOf(c.env), GOOS: c.goos, TmuxHyperlinks: c.tmux}, nil).Caps
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// Overrides: the environment's over detection, the settings' over both;
// "auto" leaves detection alone.
func TestOverrides(t *testing.T) {
	iterm := map[string]string{"TERM_PROGRAM": "iTerm.app"}
	plain := map[string]string{"TERM": "xterm-256color"}
	with := func(base map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	cases := []struct {
		name     string
		env      map[string]string
		settings map[string]string
		want     Caps
	}{
		{"PI_IMAGE_PROTOCOL kitty", with(plain, "PI_IMAGE_PROTOCOL", "kitty"), nil, Caps{Images: Kitty}},
		{"PI_IMAGE_PROTOCOL ITERM2", with(plain, "PI_IMAGE_PROTOCOL", "ITERM2"), nil, Caps{Images: ITerm2}},
		{"PI_IMAGE_PROTOCOL none", with(iterm, "PI_IMAGE_PROTOCOL", "none"), nil, Caps{true, true, None}},
		{"PI_IMAGE_PROTOCOL 0", with(iterm, "PI_IMAGE_PROTOCOL", "0"), nil, Caps{true, true, None}},
		{"PI_IMAGE_PROTOCOL auto", with(iterm, "PI_IMAGE_PROTOCOL", "auto"), nil, Caps{true, true, ITerm2}},
		{"PI_TRUE_COLOR 1", with(plain, "PI_TRUE_COLOR", "1"), nil, Caps{TrueColor: true}},
		{"PI_TRUE_COLOR 0", with(iterm, "PI_TRUE_COLOR", "0"), nil, Caps{false, true, ITerm2}},
		{"PI_HYPERLINKS 1", with(plain, "PI_HYPERLINKS", "1"), nil, Caps{Hyperlinks: true}},
		{"PI_HYPERLINKS 0", with(iterm, "PI_HYPERLINKS", "0"), nil, Caps{true, false, ITerm2}},
		{"PI_HYPERLINKS auto", with(iterm, "PI_HYPERLINKS", "auto"), nil, Caps{true, true, ITerm2}},
		{"terminal.images kitty", plain, map[string]string{"terminal.images": `"kitty"`}, Caps{Images: Kitty}},
		{"terminal.images false", iterm, map[string]string{"terminal.images": `false`}, Caps{true, true, None}},
		{"terminal.images auto", iterm, map[string]string{"terminal.images": `"auto"`}, Caps{true, true, ITerm2}},
		{"setting beats PI_IMAGE_PROTOCOL", with(plain, "PI_IMAGE_PROTOCOL", "kitty"), map[string]string{"terminal.images": `"iterm2"`}, Caps{Images: ITerm2}},
		{"setting false beats env", with(plain, "PI_IMAGE_PROTOCOL", "kitty"), map[string]string{"terminal.images": `false`}, Caps{}},
		{"terminal.trueColor true", plain, map[string]string{"terminal.trueColor": `true`}, Caps{TrueColor: true}},
		{"terminal.trueColor false beats env", with(plain, "PI_TRUE_COLOR", "1"), map[string]string{"terminal.trueColor": `false`}, Caps{}},
		{"terminal.trueColor auto keeps env", with(plain, "PI_TRUE_COLOR", "1"), map[string]string{"terminal.trueColor": `"auto"`}, Caps{TrueColor: true}},
		{"terminal.hyperlinks false beats env", with(plain, "PI_HYPERLINKS", "1"), map[string]string{"terminal.hyperlinks": `false`}, Caps{}},
		{"terminal.hyperlinks true", plain, map[string]string{"terminal.hyperlinks": `true`}, Caps{Hyperlinks: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Resolve(Env{Getenv: envOf(c.env), GOOS: "linux", TmuxHyperlinks: func() bool { return false }}, settingsOf(c.settings)).Caps
			if got != c.want {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// An override of hyperlinks decides inside tmux without asking tmux.
func TestTmuxAskedOnlyWithoutOverride(t *testing.T) {
	asked := 0
	probe := func() bool { asked++; return true }
	env := map[string]string{"TMUX": "/tmp/t"}
	if c := Resolve(Env{Getenv: envOf(env), TmuxHyperlinks: probe}, nil).Caps; !c.Hyperlinks || asked != 1 {
		t.Fatalf("tmux not asked: %+v, %d", c, asked)
	}
	env["PI_HYPERLINKS"] = "0"
	if c := Resolve(Env{Getenv: envOf(env), TmuxHyperlinks: probe}, nil).Caps; c.Hyperlinks || asked != 1 {
		t.Errorf("PI_HYPERLINKS=0 inside tmux: %+v, asked %d times", c, asked)
	}
	delete(env, "PI_HYPERLINKS")
	if c := Resolve(Env{Getenv: envOf(env), TmuxHyperlinks: probe}, settingsOf(map[string]string{"terminal.hyperlinks": "false"})).Caps; c.Hyperlinks || asked != 1 {
		t.Errorf("terminal.hyperlinks false inside tmux: %+v, asked %d times", c, asked)
	}
}

func TestTerminalSettings(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		settings map[string]string
		check    func(Terminal) bool
	}{
		{"defaults", nil, nil, func(t Terminal) bool {
			return t.ShowImages && t.ImageWidthCells == 60 && !t.ClearOnShrink && !t.Progress && !t.HardwareCursor &&
				!t.ClipboardOSC52 && t.ProgramStatus == StatusAsk
		}},
		{"showImages false", nil, map[string]string{"terminal.showImages": "false"}, func(t Terminal) bool { return !t.ShowImages }},
		{"imageWidthCells floored", nil, map[string]string{"terminal.imageWidthCells": "30.7"}, func(t Terminal) bool { return t.ImageWidthCells == 30 }},
		{"imageWidthCells at least 1", nil, map[string]string{"terminal.imageWidthCells": "0"}, func(t Terminal) bool { return t.ImageWidthCells == 1 }},
		{"imageWidthCells not a number", nil, map[string]string{"terminal.imageWidthCells": `"wide"`}, func(t Terminal) bool { return t.ImageWidthCells == 60 }},
		{"PI_CLEAR_ON_SHRINK", map[string]string{"PI_CLEAR_ON_SHRINK": "1"}, nil, func(t Terminal) bool { return t.ClearOnShrink }},
		{"clearOnShrink false beats env", map[string]string{"PI_CLEAR_ON_SHRINK": "1"}, map[string]string{"terminal.clearOnShrink": "false"}, func(t Terminal) bool { return !t.ClearOnShrink }},
		{"showTerminalProgress", nil, map[string]string{"terminal.showTerminalProgress": "true"}, func(t Terminal) bool { return t.Progress }},
		{"PI_HARDWARE_CURSOR", map[string]string{"PI_HARDWARE_CURSOR": "1"}, nil, func(t Terminal) bool { return t.HardwareCursor }},
		{"showHardwareCursor false beats env", map[string]string{"PI_HARDWARE_CURSOR": "1"}, map[string]string{"showHardwareCursor": "false"}, func(t Terminal) bool { return !t.HardwareCursor }},
		{"ssh: OSC 52", map[string]string{"SSH_CONNECTION": "1.2.3.4 5 6.7.8.9 22"}, nil, func(t Terminal) bool { return t.ClipboardOSC52 }},
		{"mosh", map[string]string{"MOSH_CONNECTION": "1"}, nil, func(t Terminal) bool { return t.ClipboardOSC52 }},
		{"PI_CLIPBOARD_OSC52", map[string]string{"PI_CLIPBOARD_OSC52": "1"}, nil, func(t Terminal) bool { return t.ClipboardOSC52 }},
		{"PI_PROGRAM_STATUS 1", map[string]string{"PI_PROGRAM_STATUS": "1"}, nil, func(t Terminal) bool { return t.ProgramStatus == StatusAlways }},
		{"PI_PROGRAM_STATUS 0", map[string]string{"PI_PROGRAM_STATUS": "0"}, nil, func(t Terminal) bool { return t.ProgramStatus == StatusNever }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Resolve(Env{Getenv: envOf(c.env), TmuxHyperlinks: func() bool { return false }}, settingsOf(c.settings))
			if !c.check(got) {
				t.Errorf("got %+v", got)
			}
		})
	}
}

func TestProfile(t *testing.T) {
	cases := []struct {
		true     bool
		detected colorprofile.Profile
		want     colorprofile.Profile
	}{
		{true, colorprofile.ANSI256, colorprofile.TrueColor},
		{true, colorprofile.ANSI, colorprofile.TrueColor},
		{true, colorprofile.ASCII, colorprofile.ASCII},
		{true, colorprofile.NoTTY, colorprofile.NoTTY},
		{false, colorprofile.TrueColor, colorprofile.ANSI256},
		{false, colorprofile.ANSI256, colorprofile.ANSI256},
		{false, colorprofile.ANSI, colorprofile.ANSI},
	}
	for _, c := range cases {
		if got := (Caps{TrueColor: c.true}).Profile(c.detected); got != c.want {
			t.Errorf("trueColor %v over %v: %v, want %v", c.true, c.detected, got, c.want)
		}
	}
}
