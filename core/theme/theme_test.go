package theme

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/diag"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Each testdata/parse/NAME.json is read; NAME.golden holds the resolved
// roles of a valid theme or the message of an invalid one.
func TestParseGolden(t *testing.T) {
	files, _ := filepath.Glob("testdata/parse/*.json")
	if len(files) == 0 {
		t.Fatal("no test files")
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := describe(Parse(data))
			golden := strings.TrimSuffix(f, ".json") + ".golden"
			if *update {
				os.WriteFile(golden, []byte(got), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func describe(th *Theme, err error) string {
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s\nappearance: %s\n", th.Name, th.Appearance)
	for _, r := range Roles() {
		fmt.Fprintf(&b, "%s: %q\n", r, th.Color(r).Spec())
	}
	for i, k := range exportKeys {
		if c := th.export[i]; c != nil {
			fmt.Fprintf(&b, "export.%s: %q\n", k, c.Spec())
		}
	}
	return b.String()
}

// Values computed by the established harness's own conversion (pi-tui's
// parseColor and colorToHex) for the same text.
func TestConversion(t *testing.T) {
	cases := map[string]string{
		"oklch(62% 0.1 200)":    "#1c989e",
		"oklch(0.7 0.15 30)":    "#ed7665",
		"oklch(100% 0.3 150)":   "#ffffff", // out of gamut: mapped to white
		"oklch(50% 0.4 270)":    "#3435ff", // out of gamut: chroma reduced
		"oklch(0 0 0)":          "#000000",
		"OKLCH(40% 0.2 -30deg)": "#780075",
		"okhsl(250 60% 55%)":    "#4e88c2",
		"okhsl(30 100% 50%)":    "#de1100",
		"okhsl(140 70% 70%)":    "#7ac06b",
		"okhsl(0 0% 100%)":      "#ffffff",
		"okhsl(200 80% 10%)":    "#031a1c",
		"okhsl(75 85% 76%)":     "#f0ad45",
		"#0af":                  "#00aaff",
		"#00AAFF":               "#00aaff",
	}
	for in, want := range cases {
		c, err := parseLiteral(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := c.Hex(); got != want {
			t.Errorf("%s = %s, want %s", in, got, want)
		}
	}
	if got := Index(39).Hex(); got != "#00afff" {
		t.Errorf("index 39 = %s", got)
	}
	if got := Index(244).Hex(); got != "#808080" {
		t.Errorf("index 244 = %s", got)
	}
}

func TestBuiltins(t *testing.T) {
	for _, n := range builtinNames {
		if _, err := Parse(mustRead(t, "builtin/"+n+".json")); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		th, ok := Builtin(n)
		if !ok || th.Name != n {
			t.Errorf("Builtin(%s) = %v, %v", n, th, ok)
		}
	}
	d, _ := Builtin("dark")
	l, _ := Builtin("light")
	if d.Appearance != "dark" || l.Appearance != "light" || d.Color("accent") == l.Color("accent") {
		t.Errorf("dark and light: %s %s %v", d.Appearance, l.Appearance, d.Color("accent"))
	}
}

func mustRead(t *testing.T, p string) []byte {
	data, err := builtinFS.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func writeTheme(t *testing.T, path, name, accent string) {
	t.Helper()
	data, _ := builtinFS.ReadFile("builtin/dark.json")
	s := strings.Replace(string(data), `"name": "dark"`, fmt.Sprintf("%q: %q", "name", name), 1)
	s = strings.Replace(s, `"accent": "sky"`, fmt.Sprintf(`"accent": %q`, accent), 1)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent", "themes")
	project := filepath.Join(dir, "proj", ".pi", "themes")
	writeTheme(t, filepath.Join(agent, "ocean.json"), "ocean", "#0000ff")
	writeTheme(t, filepath.Join(agent, "dup.json"), "forest", "#00ff00")
	writeTheme(t, filepath.Join(project, "forest.json"), "forest", "#008800")
	writeTheme(t, filepath.Join(agent, "system.json"), "system", "#ff0000")
	os.WriteFile(filepath.Join(agent, "broken.json"), []byte(`{"name": "broken", "colors": {}}`), 0o644)
	os.WriteFile(filepath.Join(agent, "notes.txt"), []byte(`not a theme`), 0o644)
	flagFile := filepath.Join(dir, "flag.json")
	writeTheme(t, flagFile, "ocean", "#000088")
	s, ds := Load(Sources{Dirs: []string{project, agent}, Flags: []string{flagFile, filepath.Join(dir, "missing.json")}})
	if got := strings.Join(s.Names(), ","); got != "system,dark,forest,light,ocean" {
		t.Errorf("names = %s", got)
	}
	if f, _ := s.Get("forest"); f.Color("accent").Spec() != "#008800" {
		t.Errorf("the project's forest should win: %v", f.Color("accent"))
	}
	if o, _ := s.Get("ocean"); o.Color("accent").Spec() != "#0000ff" {
		t.Errorf("the agent dir's ocean comes before --theme: %v", o.Color("accent"))
	}
	want := []string{
		filepath.Join(agent, "broken.json") + ": invalid theme: colors: missing",
		filepath.Join(agent, "dup.json") + `: theme "forest" is already defined by ` + filepath.Join(project, "forest.json"),
		filepath.Join(agent, "system.json") + `: theme name "system" is reserved`,
		flagFile + `: theme "ocean" is already defined by`,
		filepath.Join(dir, "missing.json") + ": theme path does not exist",
	}
	all := diagText(ds)
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("diagnostics lack %q:\n%s", w, all)
		}
	}
	// --no-themes: only --theme files.
	s, _ = Load(Sources{Dirs: []string{project, agent}, Flags: []string{flagFile}, NoDiscover: true})
	if got := strings.Join(s.Names(), ","); got != "system,dark,light,ocean" {
		t.Errorf("--no-themes names = %s", got)
	}
}

func diagText(ds []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Where() + ": " + d.Message + "\n")
	}
	return b.String()
}

func TestPick(t *testing.T) {
	s, _ := Load(Sources{})
	cases := []struct{ setting, appearance, want, note string }{
		{"", "dark", "system", ""},
		{"dark", "light", "dark", ""},
		{"light/dark", "light", "light", ""},
		{"light/dark", "dark", "dark", ""},
		{"lihgt", "dark", "system", `theme "lihgt" not found (did you mean "light"?); using "system"`},
		{"zzzzzzzz", "dark", "system", `theme "zzzzzzzz" not found; using "system"`},
		{"a/b/c", "dark", "system", `theme "a/b/c": want a theme name or LIGHT/DARK (two names); using "system"`},
	}
	for _, c := range cases {
		th, note := s.Pick(c.setting, c.appearance)
		if th.Name != c.want || note != c.note {
			t.Errorf("Pick(%q, %s) = %s, %q; want %s, %q", c.setting, c.appearance, th.Name, note, c.want, c.note)
		}
	}
}

func TestEnvAppearance(t *testing.T) {
	for v, want := range map[string]string{"": "", "15;0": "dark", "0;15": "light", "0;default;7": "light", "7;8": "dark", "0;16": "", "x": ""} {
		if got := EnvAppearance(func(string) string { return v }); got != want {
			t.Errorf("COLORFGBG=%q: %q, want %q", v, got, want)
		}
	}
}

func TestPalette(t *testing.T) {
	d, _ := Builtin("dark")
	p := d.Palette("light")
	if !p.Dark || p.PageBg != d.export[0].Hex() || p.Text != "#e5e5e7" {
		t.Errorf("dark palette: %+v", p)
	}
	// Without export colours: derived from userMessageBg.
	page, card, info := derive("#343541")
	if page != "rgb(36, 37, 46)" || card != "rgb(44, 45, 55)" || info != "rgb(72, 68, 65)" {
		t.Errorf("derive dark: %s %s %s", page, card, info)
	}
	if page, card, _ := derive("#ffffff"); page != "rgb(245, 245, 245)" || card != "#ffffff" {
		t.Errorf("derive light: %s %s", page, card)
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/parse/*.json")
	for _, p := range files {
		data, _ := os.ReadFile(p)
		f.Add(data)
	}
	f.Add([]byte(`{"name":"x","vars":{"a":"b","b":"a"},"colors":{"accent":"a"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		th, err := Parse(data)
		if err == nil && (th.Name == "" || strings.Contains(th.Name, "/")) {
			t.Fatalf("accepted a theme without a valid name: %q", th.Name)
		}
	})
}

// testdata/peer/NAME.txt is every role's colour as the established
// harness resolves the same file (its loadThemeFromPath, then colorToHex;
// the terminal default as its guess for the theme's appearance).
func TestResolvedAsThePeer(t *testing.T) {
	files := map[string]string{"dark": "builtin/dark.json", "light": "builtin/light.json", "forms": "testdata/parse/forms.json", "fallbacks-given": "testdata/parse/fallbacks-given.json"}
	for name, src := range files {
		var data []byte
		var err error
		if strings.HasPrefix(src, "builtin/") {
			data, err = builtinFS.ReadFile(src)
		} else {
			data, err = os.ReadFile(src)
		}
		if err != nil {
			t.Fatal(err)
		}
		th, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile("testdata/peer/" + name + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		g := guessed[th.Appearance]
		for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
			role, hex, _ := strings.Cut(line, " ")
			c := th.Color(role)
			if c.IsDefault() {
				c = g[0]
				if tokens[tokenIndex(role)].slot == bg {
					c = g[1]
				}
			}
			if c.Hex() != hex {
				t.Errorf("%s: %s = %s, the established harness has %s", name, role, c.Hex(), hex)
			}
		}
	}
}

// BenchmarkLoadBuiltins is a Load without custom themes once the built-in
// theme in use is parsed; BenchmarkParseSystem is that one-time parse of
// the default theme, what a session's start-up pays for themes.
func BenchmarkLoadBuiltins(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Load(Sources{})
	}
}

func BenchmarkParseSystem(b *testing.B) {
	data, _ := builtinFS.ReadFile("builtin/system.json")
	b.ReportAllocs()
	for b.Loop() {
		Parse(data)
	}
}
