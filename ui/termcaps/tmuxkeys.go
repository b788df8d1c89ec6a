package termcaps

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// TmuxKeysWarning says what to change when pi runs inside tmux with
// extended keys off (Shift+Enter and Alt+Enter then arrive as a plain
// Enter) or in the xterm format; "" outside tmux, when the setup is
// fine, or when tmux cannot be asked. show reads a global tmux option
// (nil: the tmux command).
func TmuxKeysWarning(getenv func(string) string, show func(option string) (string, bool)) string {
	if getenv("TMUX") == "" {
		return ""
	}
	if show == nil {
		show = tmuxShow
	}
	keys, ok := show("extended-keys")
	if !ok {
		return ""
	}
	if keys != "on" && keys != "always" {
		return "tmux has extended-keys off: Shift+Enter and Alt+Enter reach pi as Enter. Add `set -g extended-keys on` to ~/.tmux.conf and restart tmux."
	}
	if format, ok := show("extended-keys-format"); ok && format == "xterm" {
		return "tmux sends extended keys in the xterm format; pi reads modified keys best as csi-u. Add `set -g extended-keys-format csi-u` to ~/.tmux.conf and restart tmux."
	}
	return ""
}

// tmuxShow reads a global tmux option with the tmux command.
func tmuxShow(option string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "show", "-gv", option).Output()
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(out)), true
}
