package keybind

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestParse(t *testing.T) {
	cases := []struct {
		in      string
		strokes []string // empty: an error is expected
		err     string
	}{
		{in: "ctrl+x", strokes: []string{"ctrl+x"}},
		{in: "shift+ctrl+p", strokes: []string{"ctrl+shift+p"}},
		{in: "ctrl+shift+p", strokes: []string{"ctrl+shift+p"}},
		{in: "ctrl+shift+alt+x", strokes: []string{"ctrl+alt+shift+x"}},
		{in: "alt+up", strokes: []string{"alt+up"}},
		{in: "super+k", strokes: []string{"super+k"}},
		{in: "ctrl+super+k", strokes: []string{"ctrl+super+k"}},
		{in: "escape", strokes: []string{"esc"}},
		{in: "esc", strokes: []string{"esc"}},
		{in: "return", strokes: []string{"enter"}},
		{in: "alt+enter", strokes: []string{"alt+enter"}},
		{in: "pageUp", strokes: []string{"pgup"}},
		{in: "ctrl+pageDown", strokes: []string{"ctrl+pgdown"}},
		{in: "backspace", strokes: []string{"backspace", "ctrl+h"}},
		{in: "shift+l", strokes: []string{"shift+l", "L"}},
		{in: "ctrl+1", strokes: []string{"ctrl+1"}},
		{in: "f12", strokes: []string{"f12"}},
		{in: "ctrl+]", strokes: []string{"ctrl+]"}},
		{in: "ctrl+-", strokes: []string{"ctrl+-"}},
		{in: "+", strokes: []string{"+"}},
		{in: "ctrl++", strokes: []string{"ctrl++"}},
		{in: "?", strokes: []string{"?"}},
		{in: "space", strokes: []string{"space"}},
		{in: "Ctrl+X", err: `"Ctrl+X" is not a key`},
		{in: "ctrl+X", err: `key names are lower case: "x"`},
		{in: "pgup", err: `did you mean "pageUp"?`},
		{in: "ctrl+ctrl+x", err: "names ctrl twice"},
		{in: "ctrl+", err: "is not a key"},
		{in: "", err: "no key after the modifiers"},
		{in: "ctrl+escpe", err: `did you mean "escape"?`},
		{in: "f13", err: "is not a key"},
		{in: "meta+x", err: "is not a key"},
		{in: "ctrl+shift", err: "is not a key"},
		{in: "ab", err: "is not a key"},
	}
	for _, c := range cases {
		k, err := Parse(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Parse(%q) = %v, %v; want an error with %q", c.in, k, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got := k.Strokes(); !slices.Equal(got, c.strokes) {
			t.Errorf("Parse(%q).Strokes() = %q, want %q", c.in, got, c.strokes)
		}
		again, err := Parse(k.String())
		if err != nil || again != k {
			t.Errorf("Parse(%q).String() = %q does not read back (%v)", c.in, k.String(), err)
		}
	}
}

// Every default of every platform is a key the parser reads.
func TestDefaultsParse(t *testing.T) {
	for _, p := range []Platform{{GOOS: "linux"}, {GOOS: "linux", WSL: true}, {GOOS: "darwin"}, {GOOS: "windows"}} {
		seen := map[string]bool{}
		for _, a := range Actions(p) {
			if seen[a.ID] {
				t.Errorf("%v: %s twice", p, a.ID)
			}
			seen[a.ID] = true
			if !a.Applies && a.Note == "" {
				t.Errorf("%s does not apply and says not why", a.ID)
			}
			for _, s := range a.Defaults {
				if _, err := Parse(s); err != nil {
					t.Errorf("%v: %s: %v", p, a.ID, err)
				}
			}
		}
		for legacy, id := range legacyNames {
			if !seen[id] {
				t.Errorf("legacy name %s points at unknown %s", legacy, id)
			}
		}
	}
}

// The default table, as /hotkeys and docs/interactive.md list it: any
// change to an id or a default shows in the golden file's diff.
func TestDefaultTableGolden(t *testing.T) {
	var b strings.Builder
	for _, p := range []Platform{{GOOS: "linux"}, {GOOS: "darwin"}, {GOOS: "linux", WSL: true}, {GOOS: "windows"}} {
		fmt.Fprintf(&b, "# %s wsl=%v\n", p.GOOS, p.WSL)
		bs := Defaults(p)
		for _, a := range bs.Actions() {
			var keys []string
			for _, k := range bs.Keys(a.ID) {
				keys = append(keys, k.String())
			}
			state := "pi"
			if !a.Applies {
				state = "-"
			}
			b.WriteString(strings.TrimRight(fmt.Sprintf("%-34s %-3s %s", a.ID, state, strings.Join(keys, ", ")), " ") + "\n")
		}
	}
	golden := filepath.Join("testdata", "defaults.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("default table differs from %s (go test -update to accept):\n%s", golden, b.String())
	}
}

func TestParseFile(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		set   map[string][]string // id → keys (String form)
		diags []string            // substrings, in order, with their line
	}{
		{name: "empty", file: "", set: map[string][]string{}},
		{name: "peer example", file: `{
  "$schema": "https://pi.dev/schemas/keybindings.schema.json",
  "app.session.new": "ctrl+shift+n",
  "app.session.tree": ["ctrl+shift+t", "alt+shift+t"]
}`, set: map[string][]string{"app.session.new": {"ctrl+shift+n"}, "app.session.tree": {"ctrl+shift+t", "shift+alt+t"}}},
		{name: "disable", file: `{"tui.altScreen.pageUp": []}`, set: map[string][]string{"tui.altScreen.pageUp": {}}},
		{name: "legacy name", file: `{"dequeue": "alt+d"}`, set: map[string][]string{"app.message.dequeue": {"alt+d"}}},
		{name: "legacy and new", file: "{\"dequeue\": \"alt+d\",\n\"app.message.dequeue\": \"alt+e\"}",
			set: map[string][]string{"app.message.dequeue": {"alt+e"}}, diags: []string{"1: dequeue is the old name"}},
		{name: "unknown id", file: "{\n  \"app.mesage.dequeue\": \"alt+d\"\n}", set: map[string][]string{},
			diags: []string{`2: unknown action "app.mesage.dequeue" (did you mean app.message.dequeue?)`}},
		{name: "bad key", file: "{\n\"app.clear\": \"ctrl+c\",\n\"app.exit\": [\"ctrl+q\", \"Ctrl+W\"]\n}",
			set: map[string][]string{"app.clear": {"ctrl+c"}}, diags: []string{`3: app.exit: "Ctrl+W" is not a key`}},
		{name: "wrong type", file: `{"app.exit": 3}`, set: map[string][]string{},
			diags: []string{"1: app.exit: must be a key or a list of keys, not a number; its default keys stay (ctrl+d)"}},
		{name: "not applicable", file: `{"tui.editor.yank": "ctrl+y"}`, set: map[string][]string{"tui.editor.yank": {"ctrl+y"}},
			diags: []string{"1: tui.editor.yank has no effect in pi"}},
		{name: "conflict", file: "{\"app.tools.expand\": \"ctrl+y\",\n \"app.model.select\": \"ctrl+y\"}",
			set:   map[string][]string{"app.tools.expand": {"ctrl+y"}, "app.model.select": {"ctrl+y"}},
			diags: []string{"2: ctrl+y is set for both app.tools.expand and app.model.select"}},
		{name: "null", file: `{"app.exit": null}`, set: map[string][]string{},
			diags: []string{"1: app.exit: must be a key or a list of keys, not null"}},
		{name: "clear key", file: `{"app.exit": "ctrl+clear"}`, set: map[string][]string{"app.exit": {"ctrl+clear"}},
			diags: []string{"1: app.exit: ctrl+clear never reaches pi"}},
		{name: "not json", file: "{\n\"app.exit\": ,\n}", set: map[string][]string{}, diags: []string{"2: cannot read the key bindings"}},
		{name: "not an object", file: `["ctrl+x"]`, set: map[string][]string{}, diags: []string{"not a list"}},
		{name: "bom", file: "\ufeff{\"app.exit\": \"ctrl+q\"}", set: map[string][]string{"app.exit": {"ctrl+q"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, ds := ParseFile("/a/keybindings.json", []byte(c.file))
			got := map[string][]string{}
			for id, keys := range cfg.Set {
				got[id] = []string{}
				for _, k := range keys {
					got[id] = append(got[id], k.String())
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(c.set) {
				t.Errorf("set %v, want %v", got, c.set)
			}
			if len(ds) != len(c.diags) {
				t.Fatalf("diagnostics %v, want %d", ds, len(c.diags))
			}
			for i, d := range ds {
				s := fmt.Sprintf("%d: %s", d.Line, d.Message)
				if d.Path != "/a/keybindings.json" || !strings.Contains(s, c.diags[i]) {
					t.Errorf("diagnostic %q (%s), want %q", s, d.Path, c.diags[i])
				}
			}
		})
	}
}

// A configured value replaces the defaults; [] leaves the action without
// keys; the others keep theirs.
func TestResolve(t *testing.T) {
	cfg, ds := ParseFile("k.json", []byte(`{"app.message.dequeue": "alt+d", "app.clear": [], "app.model.cycleBackward": "ctrl+shift+p"}`))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	b := Resolve(Actions(Platform{GOOS: "linux"}), cfg)
	cases := []struct {
		id, stroke string
		want       bool
	}{
		{"app.message.dequeue", "alt+d", true},
		{"app.message.dequeue", "alt+up", false},
		{"app.clear", "ctrl+c", false},
		{"tui.select.cancel", "ctrl+c", true},
		{"app.exit", "ctrl+d", true},
		{"app.model.cycleBackward", "ctrl+shift+p", true},
		{"tui.editor.deleteCharBackward", "ctrl+h", true},
		{"app.tree.editLabel", "L", true},
		{"tui.editor.yank", "ctrl+y", false}, // pi does not dispatch it
	}
	for _, c := range cases {
		if got := b.Matches(c.id, c.stroke); got != c.want {
			t.Errorf("Matches(%s, %s) = %v, want %v", c.id, c.stroke, got, c.want)
		}
	}
	if !b.Configured("app.clear") || b.Configured("app.exit") {
		t.Error("Configured does not tell the file's actions")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"ctrl+x", "shift+ctrl+alt+super+pageUp", "ctrl++", "+", "alt+", "ctrl+ctrl+a", "?", "f12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(k.String())
		if err != nil || again != k {
			t.Fatalf("%q: %q reads back as %v, %v", s, k.String(), again, err)
		}
		if len(k.Strokes()) == 0 || k.Strokes()[0] == "" {
			t.Fatalf("%q: no stroke", s)
		}
	})
}

func FuzzParseFile(f *testing.F) {
	f.Add([]byte(`{"app.exit": ["ctrl+q"], "x": 1}`))
	f.Add([]byte("{\n\"dequeue\": \"alt+d\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, ds := ParseFile("f", data)
		for _, d := range ds {
			if d.Path != "f" || d.Message == "" {
				t.Fatalf("diagnostic without place or message: %+v", d)
			}
		}
		Resolve(Actions(Platform{GOOS: "linux"}), cfg)
	})
}

// The parser accepts exactly the keys the established harness's schema
// accepts (testdata/peer_keys.txt: its verdicts, recorded by running it).
func TestParseAgreesWithPeer(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "peer_keys.txt"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		verdict, key, _ := strings.Cut(l, " ")
		key = strings.TrimLeft(key, " ")
		_, err := Parse(key)
		if (verdict == "ok") != (err == nil) {
			t.Errorf("%q: the established harness says %s, pi's parser %v", key, verdict, err)
		}
		n++
	}
	if n < 50 {
		t.Fatalf("only %d keys read", n)
	}
}
