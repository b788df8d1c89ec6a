package abi

import (
	"strings"
	"testing"
)

func TestParseKey(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "ctrl+x", want: "ctrl+x"},
		{in: "Shift+Ctrl+P", want: "ctrl+shift+p"},
		{in: "alt+pageUp", want: "alt+pgup"},
		{in: "ctrl+escape", want: "ctrl+esc"},
		{in: "f5", want: "f5"},
		{in: "super+return", want: "super+enter"},
		{in: "ctrl++", want: "ctrl++"},
		{in: "x", err: "plain character"},
		{in: "ctrl+ctrl+x", err: "twice"},
		{in: "hyper+x", err: "unknown modifier"},
		{in: "ctrl+f13", err: "unknown key"},
		{in: "ctrl+", err: "unknown key"},
		{in: "", err: "unknown key"},
	} {
		got, err := ParseKey(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseKey(%q) = %q, %v; want error with %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseKey(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"ctrl+x", "alt+shift+pageDown", "ctrl++", "+", "f12", "super+;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(s)
		if err != nil {
			return
		}
		// A parsed key is canonical: parsing it again gives it back.
		if again, err := ParseKey(k); err != nil || again != k {
			t.Fatalf("ParseKey(%q) = %q, but ParseKey(%q) = %q, %v", s, k, k, again, err)
		}
	})
}

func TestManifestFlagsAndShortcuts(t *testing.T) {
	base := func() Manifest {
		return Manifest{Name: "preset", ABI: Version, Hooks: []string{HookCommand}, Commands: []CommandInfo{{Name: "preset"}}}
	}
	for _, tc := range []struct {
		name  string
		edit  func(*Manifest)
		field string // "" = valid
	}{
		{"ok", func(m *Manifest) {
			m.Flags = []FlagSpec{{Name: "preset", Type: FlagString, Default: "plan"}, {Name: "quiet", Type: FlagBoolean, Default: true}}
			m.Shortcuts = []ShortcutSpec{{Key: "ctrl+x", Command: "preset", Args: "next"}}
		}, ""},
		{"bad type", func(m *Manifest) { m.Flags = []FlagSpec{{Name: "x", Type: "int"}} }, "flags[0].type"},
		{"bad name", func(m *Manifest) { m.Flags = []FlagSpec{{Name: "X_y", Type: FlagBoolean}} }, "flags[0].name"},
		{"twice", func(m *Manifest) {
			m.Flags = []FlagSpec{{Name: "x", Type: FlagBoolean}, {Name: "x", Type: FlagString}}
		}, "flags[1].name"},
		{"bool default", func(m *Manifest) { m.Flags = []FlagSpec{{Name: "x", Type: FlagBoolean, Default: "yes"}} }, "flags[0].default"},
		{"string default", func(m *Manifest) { m.Flags = []FlagSpec{{Name: "x", Type: FlagString, Default: 3}} }, "flags[0].default"},
		{"escape in description", func(m *Manifest) {
			m.Flags = []FlagSpec{{Name: "x", Type: FlagBoolean, Description: "ok\x1b[2K"}}
		}, "flags[0].description"},
		{"reserved config", func(m *Manifest) { m.Config = map[string]any{"flag:x": "1"} }, "config.flag:x"},
		{"bad key", func(m *Manifest) { m.Shortcuts = []ShortcutSpec{{Key: "q", Command: "preset"}} }, "shortcuts[0].key"},
		{"key twice", func(m *Manifest) {
			m.Shortcuts = []ShortcutSpec{{Key: "ctrl+x", Command: "preset"}, {Key: "Ctrl+X", Command: "preset"}}
		}, "shortcuts[1].key"},
		{"unknown command", func(m *Manifest) { m.Shortcuts = []ShortcutSpec{{Key: "ctrl+x", Command: "nope"}} }, "shortcuts[0].command"},
	} {
		m := base()
		tc.edit(&m)
		errs := m.Validate()
		if tc.field == "" {
			if len(errs) > 0 {
				t.Errorf("%s: %v", tc.name, errs)
			}
			continue
		}
		found := false
		for _, e := range errs {
			if fe, ok := e.(*FieldError); ok && fe.Field == tc.field {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: want an error on %s, got %v", tc.name, tc.field, errs)
		}
	}
}

func TestFlagCLIName(t *testing.T) {
	if got := FlagCLIName("ssh", "ssh"); got != "ssh" {
		t.Errorf("same name: %q", got)
	}
	if got := FlagCLIName("preset", "quiet"); got != "preset-quiet" {
		t.Errorf("prefixed: %q", got)
	}
}
