package keybind

import (
	"fmt"
	"slices"
	"strings"

	"github.com/piwasm/pi/core/settings"
)

// Modifiers, in the order [Key.String] writes them.
var modifiers = []string{"ctrl", "shift", "alt", "super"}

// named are the key names the established harness accepts besides a-z and
// 0-9, with Bubble Tea's name for each ("" when it is the same).
var named = map[string]string{
	"escape": "esc", "esc": "esc", "enter": "enter", "return": "enter",
	"tab": "", "space": "", "backspace": "", "delete": "", "insert": "",
	"clear": "", "home": "", "end": "", "pageUp": "pgup", "pageDown": "pgdown",
	"up": "", "down": "", "left": "", "right": "",
	"f1": "", "f2": "", "f3": "", "f4": "", "f5": "", "f6": "", "f7": "", "f8": "",
	"f9": "", "f10": "", "f11": "", "f12": "",
}

// symbols are the punctuation keys the established harness accepts.
const symbols = "`-=[]\\;',./!@#$%^&*()_+|~{}:<>?"

// Key is one key with its modifiers, as written in keybindings.json.
type Key struct {
	Ctrl, Shift, Alt, Super bool
	// Name is the key without modifiers: "a", "7", "pageUp", "?".
	Name string
}

// Parse reads a key as the established harness writes it: modifiers
// ("ctrl", "shift", "alt", "super", each at most once, in any order)
// joined to the key by "+". Names are case-sensitive, as there: "pageUp",
// "ctrl+x", never "Ctrl+X".
func Parse(s string) (Key, error) {
	var k Key
	rest := s
	for {
		found := false
		for _, m := range modifiers {
			if len(rest) > len(m)+1 && strings.HasPrefix(rest, m+"+") {
				flag := k.flag(m)
				if *flag {
					return Key{}, fmt.Errorf("%q names %s twice", s, m)
				}
				*flag = true
				rest = rest[len(m)+1:]
				found = true
				break
			}
		}
		if !found {
			break
		}
	}
	if !validName(rest) {
		return Key{}, fmt.Errorf("%q is not a key%s", s, suggest(rest))
	}
	k.Name = rest
	return k, nil
}

func (k *Key) flag(m string) *bool {
	switch m {
	case "ctrl":
		return &k.Ctrl
	case "shift":
		return &k.Shift
	case "alt":
		return &k.Alt
	}
	return &k.Super
}

func validName(s string) bool {
	if len(s) == 1 && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= '0' && s[0] <= '9' || strings.IndexByte(symbols, s[0]) >= 0) {
		return true
	}
	_, ok := named[s]
	return ok
}

// suggest says which key was probably meant by an unknown name.
func suggest(name string) string {
	if name == "" {
		return " (no key after the modifiers)"
	}
	if l := strings.ToLower(name); l != name && validName(l) {
		return fmt.Sprintf(" (key names are lower case: %q)", l)
	}
	aliases := map[string]string{"pgup": "pageUp", "pgdown": "pageDown", "pagedown": "pageDown", "pageup": "pageUp",
		"del": "delete", "ins": "insert", "cmd": "super+…", "meta": "alt+…", "option": "alt+…", "control": "ctrl+…"}
	if a, ok := aliases[strings.ToLower(name)]; ok {
		return fmt.Sprintf(" (did you mean %q?)", a)
	}
	names := make([]string, 0, len(named))
	for n := range named {
		names = append(names, n)
	}
	if n := settings.Nearest(name, names); n != "" {
		return fmt.Sprintf(" (did you mean %q?)", n)
	}
	return ""
}

// String writes k in the established harness's syntax, modifiers in the
// order ctrl, shift, alt, super.
func (k Key) String() string {
	var b strings.Builder
	for _, m := range modifiers {
		if *k.flag(m) {
			b.WriteString(m)
			b.WriteByte('+')
		}
	}
	b.WriteString(k.Name)
	return b.String()
}

// Strokes are the spellings of Bubble Tea v2 key presses (Key.Keystroke,
// and Key.String for a typed character) that k stands for. The first is
// the keystroke itself; the others are what some terminals send instead:
// a legacy terminal's backspace arrives as ctrl+h, and a shifted letter
// as the upper-case character.
func (k Key) Strokes() []string {
	var b strings.Builder
	if k.Ctrl {
		b.WriteString("ctrl+")
	}
	if k.Alt {
		b.WriteString("alt+")
	}
	if k.Shift {
		b.WriteString("shift+")
	}
	if k.Super {
		b.WriteString("super+")
	}
	name := k.Name
	if tea, ok := named[name]; ok && tea != "" {
		name = tea
	}
	b.WriteString(name)
	out := []string{b.String()}
	plain := !k.Ctrl && !k.Alt && !k.Super
	switch {
	case plain && !k.Shift && k.Name == "backspace":
		out = append(out, "ctrl+h")
	case plain && k.Shift && len(k.Name) == 1 && k.Name[0] >= 'a' && k.Name[0] <= 'z':
		out = append(out, strings.ToUpper(k.Name))
	}
	return out
}

// Same reports whether a and b are one key however written
// ("shift+ctrl+p" and "ctrl+shift+p", "esc" and "escape").
func Same(a, b Key) bool {
	return slices.Equal(a.Strokes(), b.Strokes())
}
