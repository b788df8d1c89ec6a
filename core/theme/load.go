package theme

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/settings"
)

// System is the default theme: the terminal's own ANSI colours, so the
// terminal's palette decides the shades. The name is reserved.
const System = "system"

//go:embed builtin/*.json
var builtinFS embed.FS

// builtinNames are the built-in themes in the order they are offered.
var builtinNames = [...]string{System, "dark", "light"}

// Builtin returns the built-in theme name. Each is parsed once, when
// first asked for: most sessions use one theme, and start-up should not
// pay for the others.
func Builtin(name string) (*Theme, bool) {
	for i, n := range builtinNames {
		if n == name {
			b := &builtins[i]
			b.once.Do(func() { b.t = parseBuiltin(n) })
			return b.t, b.t != nil
		}
	}
	return nil, false
}

// builtins hold the parsed built-in themes (immutable once parsed); the
// zero value is ready, so the package does nothing at initialisation.
var builtins [len(builtinNames)]struct {
	once sync.Once
	t    *Theme
}

func parseBuiltin(name string) *Theme {
	data, err := builtinFS.ReadFile("builtin/" + name + ".json")
	if err != nil {
		return nil
	}
	t, err := Parse(data)
	if err != nil {
		// The built-in files are tested; a broken one is a build defect,
		// left out rather than a crash.
		return nil
	}
	return t
}

// Sources are where themes come from besides the built-in ones, as the
// established harness looks for them. Every path is absolute.
type Sources struct {
	// Settings are the "themes" setting's entries: theme files or
	// directories of them.
	Settings []string
	// Dirs are the discovered directories, in order: the project's
	// .pi/themes (only when the project is trusted), then
	// <agent-dir>/themes.
	Dirs []string
	// Flags are --theme paths (files or directories).
	Flags []string
	// NoDiscover (--no-themes) loads only Flags.
	NoDiscover bool
}

// Set is the themes one load found: the built-in ones and every valid
// file, one per name. A file may take a built-in theme's name (dark,
// light), and then replaces it.
type Set struct {
	byName map[string]*Theme // the files' themes
	names  []string
}

// Load reads the themes of src. Bad files, missing paths, a name taken by
// an earlier theme and the reserved name "system" are reported as
// diagnostics naming the file; the rest loads. The first theme of a name
// wins (settings entries, then discovered directories, then --theme, as
// the established harness orders them); a file may replace the built-in
// dark or light theme.
func Load(src Sources) (*Set, []diag.Diagnostic) {
	s := &Set{byName: map[string]*Theme{}}
	var ds []diag.Diagnostic
	custom := map[string]string{} // name → the file that took it
	add := func(path string) {
		t, d := readFile(path)
		if d != nil {
			ds = append(ds, *d)
			return
		}
		switch prev, taken := custom[t.Name]; {
		case t.Name == System:
			ds = append(ds, diag.Diagnostic{Kind: "warning", Path: path, Message: `theme name "system" is reserved for the terminal's own colours; this theme is ignored`})
		case taken:
			ds = append(ds, diag.Diagnostic{Kind: "collision", Path: path, Message: fmt.Sprintf("theme %q is already defined by %s; this one is ignored", t.Name, prev)})
		default:
			custom[t.Name] = path
			s.byName[t.Name] = t
		}
	}
	walk := func(p string, explicit bool) {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			if explicit || !os.IsNotExist(err) {
				ds = append(ds, diag.Diagnostic{Kind: "warning", Path: p, Message: "theme path does not exist"})
			}
		case fi.IsDir():
			entries, err := os.ReadDir(p)
			if err != nil {
				ds = append(ds, diag.Diagnostic{Kind: "warning", Path: p, Message: err.Error()})
				return
			}
			for _, e := range entries {
				if !strings.HasSuffix(e.Name(), ".json") {
					continue
				}
				f := filepath.Join(p, e.Name())
				if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
					add(f)
				}
			}
		case fi.Mode().IsRegular() && strings.HasSuffix(p, ".json"):
			add(p)
		default:
			ds = append(ds, diag.Diagnostic{Kind: "warning", Path: p, Message: "theme path is not a .json file"})
		}
	}
	if !src.NoDiscover {
		for _, p := range src.Settings {
			walk(p, true)
		}
		for _, d := range src.Dirs {
			walk(d, false)
		}
	}
	for _, p := range src.Flags {
		walk(p, true)
	}
	s.names = append(s.names, builtinNames[:]...)
	for n := range s.byName {
		if !slices.Contains(s.names, n) {
			s.names = append(s.names, n)
		}
	}
	sort.Slice(s.names, func(i, j int) bool {
		a, b := s.names[i], s.names[j]
		if (a == System) != (b == System) {
			return a == System
		}
		return a < b
	})
	return s, ds
}

func readFile(path string) (*Theme, *diag.Diagnostic) {
	fi, err := os.Stat(path)
	if err == nil && fi.Size() > maxFileBytes {
		err = fmt.Errorf("the file is %d bytes; a theme is at most %d", fi.Size(), maxFileBytes)
	}
	var data []byte
	if err == nil {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, &diag.Diagnostic{Kind: "warning", Path: path, Message: "theme not loaded: " + err.Error()}
	}
	t, err := Parse(data)
	if err != nil {
		return nil, &diag.Diagnostic{Kind: "warning", Path: path, Message: "invalid theme: " + err.Error()}
	}
	t.Path = path
	return t, nil
}

// Names lists the themes: system first, then by name.
func (s *Set) Names() []string { return append([]string(nil), s.names...) }

// Get returns the theme called name.
func (s *Set) Get(name string) (*Theme, bool) {
	if t, ok := s.byName[name]; ok {
		return t, true
	}
	return Builtin(name)
}

// Pick chooses the theme a "theme" setting (or --use-theme) names for a
// terminal of the given appearance ("dark" or "light"): a name, or
// "LIGHT/DARK" to follow the terminal; empty means system. A name that
// does not exist falls back to system, and the note says so with the
// nearest name.
func (s *Set) Pick(setting, appearance string) (t *Theme, note string) {
	name := strings.TrimSpace(setting)
	if light, dark, ok := Pair(name); ok {
		name = dark
		if appearance == "light" {
			name = light
		}
	} else if strings.Contains(name, "/") {
		return s.system(), fmt.Sprintf("theme %q: want a theme name or LIGHT/DARK (two names); using %q", setting, System)
	}
	if name == "" {
		name = System
	}
	if t, ok := s.Get(name); ok {
		return t, ""
	}
	note = fmt.Sprintf("theme %q not found", name)
	if near := settings.Nearest(name, s.names); near != "" {
		note += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return s.system(), note + fmt.Sprintf("; using %q", System)
}

func (s *Set) system() *Theme {
	t, _ := Builtin(System)
	return t
}

// Pair splits the "LIGHT/DARK" form of the theme setting.
func Pair(setting string) (light, dark string, ok bool) {
	light, dark, ok = strings.Cut(setting, "/")
	light, dark = strings.TrimSpace(light), strings.TrimSpace(dark)
	if !ok || light == "" || dark == "" || strings.Contains(dark, "/") {
		return "", "", false
	}
	return light, dark, true
}

// EnvAppearance is the terminal's appearance from COLORFGBG ("fg;bg" or
// "fg;xpm;bg"), which some terminals set: background indexes 0-6 and 8
// are dark, 7 and 9-15 light. It returns "" when the variable does not
// say.
func EnvAppearance(getenv func(string) string) string {
	v := getenv("COLORFGBG")
	f := strings.Split(v, ";")
	n, err := strconv.Atoi(strings.TrimSpace(f[len(f)-1]))
	if v == "" || err != nil || n < 0 || n > 15 {
		return ""
	}
	if n <= 6 || n == 8 {
		return "dark"
	}
	return "light"
}
