package termcaps

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"strings"
	"time"

	"github.com/charmbracelet/colorprofile"
)

// Protocol is an inline image protocol; None draws the text placeholder.
type Protocol string

// The image protocols pi draws with.
const (
	None   Protocol = ""
	Kitty  Protocol = "kitty"
	ITerm2 Protocol = "iterm2"
)

// Caps are what the terminal can show.
type Caps struct {
	TrueColor  bool
	Hyperlinks bool
	Images     Protocol
}

// StatusMode says when OSC 7501 program status is reported.
type StatusMode int

const (
	// StatusAsk reports once the terminal answers the support query.
	StatusAsk StatusMode = iota
	// StatusAlways reports without asking (PI_PROGRAM_STATUS=1).
	StatusAlways
	// StatusNever does not report (PI_PROGRAM_STATUS=0).
	StatusNever
)

// Terminal is everything the interactive session needs to know about its
// terminal: the capabilities after overrides and the terminal.* settings.
type Terminal struct {
	Caps
	// ShowImages is terminal.showImages: draw images inline when Images
	// names a protocol.
	ShowImages bool
	// ImageWidthCells is terminal.imageWidthCells: the widest an image is
	// drawn, in cells.
	ImageWidthCells int
	// ClearOnShrink is terminal.clearOnShrink (or PI_CLEAR_ON_SHRINK=1).
	ClearOnShrink bool
	// Progress is terminal.showTerminalProgress: OSC 9;4 while working.
	Progress bool
	// HardwareCursor is showHardwareCursor (or PI_HARDWARE_CURSOR=1): the
	// editor shows the terminal's cursor instead of a drawn one.
	HardwareCursor bool
	// ClipboardOSC52 says /copy also sends the text through the terminal
	// after a system clipboard write: a remote session (ssh, mosh) or
	// PI_CLIPBOARD_OSC52=1.
	ClipboardOSC52 bool
	// ProgramStatus is PI_PROGRAM_STATUS.
	ProgramStatus StatusMode
	// PI_TUI_ESC_TIMEOUT is not here: Bubble Tea's input reader waits a
	// fixed 50 ms after a lone ESC and takes no other value.
}

// Env is what detection reads.
type Env struct {
	// Getenv reads the environment.
	Getenv func(string) string
	// GOOS is the operating system (runtime.GOOS).
	GOOS string
	// TmuxHyperlinks asks tmux whether it forwards OSC 8 (nil: ask the
	// tmux command). It is asked only inside tmux and only when no
	// override decides.
	TmuxHyperlinks func() bool
}

// Lookup returns a setting's JSON value as the settings files set it; ok
// is false when no file sets it.
type Lookup func(name string) (raw json.RawMessage, ok bool)

// Defaults of the terminal.* settings (the established harness's, as
// core/settings registers them).
const DefaultImageWidthCells = 60

// Resolve detects the terminal and applies the environment overrides and
// then the settings, which take precedence, as the established harness
// does. A setting of the wrong type counts as unset (the settings model
// reports it).
func Resolve(e Env, get Lookup) Terminal {
	if get == nil {
		get = func(string) (json.RawMessage, bool) { return nil, false }
	}
	env := e.Getenv
	if env == nil {
		env = func(string) string { return "" }
	}
	e.Getenv = env
	setHyper, hyperSet := settingBool(get, "terminal.hyperlinks")
	setTrue, trueSet := settingBool(get, "terminal.trueColor")
	envHyper, envHyperSet := envBool(env("PI_HYPERLINKS"))
	tmux := e.TmuxHyperlinks
	switch {
	case hyperSet:
		tmux = func() bool { return setHyper }
	case envHyperSet:
		tmux = func() bool { return envHyper }
	case tmux == nil:
		tmux = probeTmuxHyperlinks
	}
	c := detect(e, tmux)
	// The environment's overrides, then the settings'.
	switch strings.ToLower(env("PI_IMAGE_PROTOCOL")) {
	case "kitty":
		c.Images = Kitty
	case "iterm2":
		c.Images = ITerm2
	case "none", "0":
		c.Images = None
	}
	if v, ok := envBool(env("PI_TRUE_COLOR")); ok {
		c.TrueColor = v
	}
	if envHyperSet {
		c.Hyperlinks = envHyper
	}
	if raw, ok := get("terminal.images"); ok {
		var s string
		var b bool
		switch {
		case json.Unmarshal(raw, &s) == nil && s == "kitty":
			c.Images = Kitty
		case json.Unmarshal(raw, &s) == nil && s == "iterm2":
			c.Images = ITerm2
		case json.Unmarshal(raw, &b) == nil && !b:
			c.Images = None
		}
	}
	if trueSet {
		c.TrueColor = setTrue
	}
	if hyperSet {
		c.Hyperlinks = setHyper
	}

	t := Terminal{Caps: c, ShowImages: true, ImageWidthCells: DefaultImageWidthCells}
	if v, ok := settingBool(get, "terminal.showImages"); ok {
		t.ShowImages = v
	}
	if raw, ok := get("terminal.imageWidthCells"); ok {
		var f float64
		if json.Unmarshal(raw, &f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			t.ImageWidthCells = max(1, int(math.Floor(f)))
		}
	}
	if v, ok := settingBool(get, "terminal.clearOnShrink"); ok {
		t.ClearOnShrink = v
	} else {
		t.ClearOnShrink = env("PI_CLEAR_ON_SHRINK") == "1"
	}
	t.Progress, _ = settingBool(get, "terminal.showTerminalProgress")
	if v, ok := settingBool(get, "showHardwareCursor"); ok {
		t.HardwareCursor = v
	} else {
		t.HardwareCursor = env("PI_HARDWARE_CURSOR") == "1"
	}
	t.ClipboardOSC52 = env("SSH_CONNECTION") != "" || env("SSH_CLIENT") != "" || env("MOSH_CONNECTION") != "" || env("PI_CLIPBOARD_OSC52") == "1"
	switch env("PI_PROGRAM_STATUS") {
	case "1":
		t.ProgramStatus = StatusAlways
	case "0":
		t.ProgramStatus = StatusNever
	}
	return t
}

// detect is the established harness's detection from the environment the
// terminal sets, before any override.
func detect(e Env, tmuxHyperlinks func() bool) Caps {
	env := e.Getenv
	prog := strings.ToLower(env("TERM_PROGRAM"))
	emulator := strings.ToLower(env("TERMINAL_EMULATOR"))
	term := strings.ToLower(env("TERM"))
	colorTerm := strings.ToLower(env("COLORTERM"))
	hint := colorTerm == "truecolor" || colorTerm == "24bit" || strings.HasSuffix(term, "-direct")
	all := Caps{TrueColor: true, Hyperlinks: true}
	switch {
	// Multiplexers: images do not pass through reliably; tmux forwards
	// OSC 8 only when its client says so, screen never.
	case env("TMUX") != "" || strings.HasPrefix(term, "tmux"):
		return Caps{TrueColor: hint, Hyperlinks: tmuxHyperlinks()}
	case strings.HasPrefix(term, "screen"):
		return Caps{TrueColor: hint}
	// herdr before the others: KITTY_WINDOW_ID and the like leak into its
	// panes from the terminal around it.
	case prog == "herdr":
		return Caps{TrueColor: hint, Hyperlinks: true, Images: Kitty}
	case prog == "rex",
		prog == "orca" && env("ORCA_IMAGE_PROTOCOL") == "kitty",
		env("KITTY_WINDOW_ID") != "" || prog == "kitty",
		prog == "ghostty" || strings.Contains(term, "ghostty") || env("GHOSTTY_RESOURCES_DIR") != "",
		env("WEZTERM_PANE") != "" || prog == "wezterm",
		prog == "warpterminal" || env("WARP_SESSION_ID") != "" || env("WARP_TERMINAL_SESSION_UUID") != "":
		all.Images = Kitty
		return all
	case env("ITERM_SESSION_ID") != "" || prog == "iterm.app":
		all.Images = ITerm2
		return all
	case env("WT_SESSION") != "",
		prog == "alacritty" || strings.HasPrefix(term, "alacritty") || env("ALACRITTY_WINDOW_ID") != "",
		prog == "vscode", prog == "zed":
		return all
	case emulator == "jetbrains-jediterm":
		return Caps{TrueColor: true}
	case e.GOOS == "windows":
		// Modern Windows consoles have true colour; hyperlinks only where
		// a terminal was recognised above.
		return Caps{TrueColor: true}
	}
	// An unknown terminal: a terminal that swallows OSC 8 would hide the
	// address, so links stay plain text.
	return Caps{TrueColor: hint}
}

// probeTmuxHyperlinks asks the attached tmux client whether it forwards
// hyperlinks (its client_termfeatures); any failure means no.
func probeTmuxHyperlinks() bool {
	ctx, cancel := context.WithTimeout(context.Background(), 250*time.Millisecond)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "display-message", "-p", "#{client_termfeatures}").Output()
	if err != nil {
		return false
	}
	for _, f := range strings.Split(string(out), ",") {
		if strings.TrimSpace(f) == "hyperlinks" {
			return true
		}
	}
	return false
}

// envBool reads an override that is "1" or "0"; anything else (unset,
// "auto") leaves detection alone.
func envBool(v string) (value, ok bool) {
	switch v {
	case "1":
		return true, true
	case "0":
		return false, true
	}
	return false, false
}

// settingBool reads a boolean setting; "auto" or another type is unset.
func settingBool(get Lookup, name string) (value, ok bool) {
	raw, set := get(name)
	if !set {
		return false, false
	}
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		return false, false
	}
	return b, true
}

// Profile is the colour profile the renderer uses, given the one Bubble
// Tea detects: true colour when the terminal has it (or it is forced);
// otherwise at most 256 colours, as the established harness draws. A
// terminal without colour (NO_COLOR, not a terminal) stays so.
func (c Caps) Profile(detected colorprofile.Profile) colorprofile.Profile {
	switch {
	case detected <= colorprofile.ASCII:
		return detected
	case c.TrueColor:
		return colorprofile.TrueColor
	case detected > colorprofile.ANSI256:
		return colorprofile.ANSI256
	}
	return detected
}
