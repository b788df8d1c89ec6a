package abi

import (
	"fmt"
	"strings"
)

// Flag types.
const (
	FlagBoolean = "boolean"
	FlagString  = "string"
)

// FlagSpec is a command-line flag an extension declares in its manifest
// (the established harness's registerFlag). pi reads it without running
// the guest: `pi --help` lists it and the command line accepts it as
// [FlagSpec.CLIName]. The guest reads the value with Extism's config_get
// under [FlagConfigPrefix]+name (every PDK's own config getter), or the
// SDK's sdk.Flag.
type FlagSpec struct {
	// Name is ^[a-z][a-z0-9-]*$, at most 64 characters.
	Name string `yaml:"name" json:"name"`
	// Type is "boolean" (present or not; --x=false turns it off) or
	// "string" (takes a value).
	Type string `yaml:"type" json:"type"`
	// Description is the --help line.
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Default is the value when the flag is not given: a bool for a
	// boolean flag (false when absent), a string for a string flag (no
	// value when absent).
	Default any `yaml:"default,omitempty" json:"default,omitempty"`
}

// FlagConfigPrefix starts the config key under which a guest reads a
// flag's value: config_get("flag:plan"). A boolean flag reads "true" or
// "false"; a string flag its text, or nothing when it was not given and
// has no default.
const FlagConfigPrefix = "flag:"

// FlagCLIName is the command-line name of extension ext's flag (without
// the leading "--"): "<ext>-<flag>", or just "<ext>" when the flag has the
// extension's name. The established harness puts an extension's flags in
// one namespace with its own (--plan); pi prefixes the extension's name so
// that two extensions, or an extension and pi, cannot claim the same
// flag, and a flag named like its extension keeps the short form the
// established harness's examples use (extension ssh, flag ssh: --ssh).
func FlagCLIName(ext, flag string) string {
	if flag == ext {
		return ext
	}
	return ext + "-" + flag
}

// DefaultText is the flag's value when it is not given, as config_get
// serves it, and whether there is one.
func (f FlagSpec) DefaultText() (string, bool) {
	switch v := f.Default.(type) {
	case bool:
		return fmt.Sprint(v), true
	case string:
		return v, true
	}
	if f.Type == FlagBoolean {
		return "false", true
	}
	return "", false
}

// ShortcutSpec is a key an extension binds in the interactive session (the
// established harness's registerShortcut): pressing it runs one of the
// extension's commands, as if "/command args" had been typed. A key pi
// already uses keeps pi's meaning; the clash is reported.
type ShortcutSpec struct {
	// Key is modifiers and a key joined by "+": ctrl, alt, shift, super;
	// a-z, 0-9, f1-f12, a named key (enter, tab, space, backspace, delete,
	// insert, home, end, pageUp, pageDown, up, down, left, right, escape)
	// or a symbol. See ParseKey.
	Key string `yaml:"key" json:"key"`
	// Description is what /hotkeys shows.
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Command is the name of one of the manifest's commands.
	Command string `yaml:"command" json:"command"`
	// Args is the argument text the command gets.
	Args string `yaml:"args,omitempty" json:"args,omitempty"`
}

// keyName maps the established harness's key names to the names pi's
// terminal layer reports, "" for another key. (A switch, not a map: a map
// literal is built by code every process runs at start-up.)
func keyName(key string) string {
	switch key {
	case "escape", "esc":
		return "esc"
	case "enter", "return":
		return "enter"
	case "pageup", "pgup":
		return "pgup"
	case "pagedown", "pgdown":
		return "pgdown"
	case "tab", "space", "backspace", "delete", "insert", "home", "end", "up", "down", "left", "right":
		return key
	}
	return ""
}

// ParseKey checks a key spec ("ctrl+shift+p", "alt+enter", "f5") and
// returns it in the form pi's terminal layer reports a key press:
// lowercase, modifiers in the order ctrl, alt, shift, super, named keys
// spelled as it spells them (pageUp is pgup, escape is esc).
func ParseKey(spec string) (string, error) {
	parts := strings.Split(spec, "+")
	if strings.HasSuffix(spec, "++") || spec == "+" {
		// "ctrl++": the key is "+" itself.
		parts = append(strings.Split(strings.TrimSuffix(spec, "++"), "+"), "+")
		if spec == "+" {
			parts = []string{"+"}
		}
	}
	key := strings.ToLower(parts[len(parts)-1])
	mods := map[string]bool{}
	for _, p := range parts[:len(parts)-1] {
		p = strings.ToLower(p)
		switch p {
		case "ctrl", "alt", "shift", "super":
			if mods[p] {
				return "", fmt.Errorf("key %q names %s twice", spec, p)
			}
			mods[p] = true
		default:
			return "", fmt.Errorf("key %q: unknown modifier %q (want ctrl, alt, shift or super)", spec, p)
		}
	}
	switch {
	case keyName(key) != "":
		key = keyName(key)
	case len(key) == 1 && (key[0] >= 'a' && key[0] <= 'z' || key[0] >= '0' && key[0] <= '9' || strings.ContainsRune("`-=[]\\;',./!@#$%^&*()_+|~{}:<>?", rune(key[0]))):
	case len(key) >= 2 && key[0] == 'f' && isFKey(key[1:]):
	default:
		return "", fmt.Errorf("key %q: unknown key %q", spec, parts[len(parts)-1])
	}
	if len(mods) == 0 && len(key) == 1 {
		return "", fmt.Errorf("key %q is a plain character, which the editor needs for typing; add ctrl, alt or super", spec)
	}
	var b strings.Builder
	for _, m := range []string{"ctrl", "alt", "shift", "super"} {
		if mods[m] {
			b.WriteString(m + "+")
		}
	}
	b.WriteString(key)
	return b.String(), nil
}

func isFKey(n string) bool {
	switch n {
	case "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12":
		return true
	}
	return false
}

// validateCLI checks the manifest's flags and shortcuts.
func (m *Manifest) validateCLI(add func(field, format string, args ...any)) {
	seen := map[string]bool{}
	for i, f := range m.Flags {
		field := fmt.Sprintf("flags[%d]", i)
		switch {
		case len(f.Name) > 64 || !isExtName(f.Name):
			add(field+".name", "%q must match ^[a-z][a-z0-9-]*$ (at most 64 characters)", f.Name)
		case seen[f.Name]:
			add(field+".name", "flag %q listed twice", f.Name)
		}
		seen[f.Name] = true
		switch f.Type {
		case FlagBoolean:
			if _, ok := f.Default.(bool); f.Default != nil && !ok {
				add(field+".default", "a boolean flag's default must be true or false")
			}
		case FlagString:
			if _, ok := f.Default.(string); f.Default != nil && !ok {
				add(field+".default", "a string flag's default must be a string")
			}
		default:
			add(field+".type", "%q must be %q or %q", f.Type, FlagBoolean, FlagString)
		}
	}
	if cfg, ok := normalizeYAML(m.Config).(map[string]any); ok {
		for _, k := range sortedKeys(cfg) {
			if strings.HasPrefix(k, FlagConfigPrefix) {
				add("config."+k, "keys starting with %q are where the guest reads its flags' values", FlagConfigPrefix)
			}
		}
	}
	keys := map[string]bool{}
	for i, s := range m.Shortcuts {
		field := fmt.Sprintf("shortcuts[%d]", i)
		if k, err := ParseKey(s.Key); err != nil {
			add(field+".key", "%v", err)
		} else if keys[k] {
			add(field+".key", "key %q bound twice", s.Key)
		} else {
			keys[k] = true
		}
		found := false
		for _, c := range m.Commands {
			found = found || c.Name == s.Command
		}
		if !found {
			add(field+".command", "%q is not one of the manifest's commands", s.Command)
		}
	}
}
