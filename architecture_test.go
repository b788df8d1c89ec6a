package pi

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// The rooms of ARCHITECTURE.md and what each may import besides itself
// and the standard library (third-party modules are not pi's and are not
// checked). Imports run down: cmd → ui, rpc → host → core → abi, with
// internal/ (leaf helpers) under everything but abi.
var mayImport = map[string][]string{
	"abi":       {},
	"internal":  {},
	"sdk-guest": {"abi"},
	"core":      {"abi", "internal"},
	"host":      {"core", "abi", "internal"},
	"rpc":       {"host", "core", "abi", "internal"},
	"ui":        {"host", "core", "abi", "internal"},
	"cmd":       {"ui", "rpc", "host", "core", "abi", "internal", "pi", "sdk-guest"},
	"pi":        {"abi"},                      // the module root: the embedded SDK, the changelog
	"plugins":   {"sdk-guest", "abi", "core"}, // example guests; core only for pure helpers (shellcmd)
	"bench":     {"internal"},                 // benchmark tools
}

const module = "github.com/piwasm/pi"

// room names the room a package of this module is in; "" for a
// package outside the module.
func room(pkg string) string {
	if pkg == module {
		return "pi"
	}
	rest, ok := strings.CutPrefix(pkg, module+"/")
	if !ok {
		return ""
	}
	r, _, _ := strings.Cut(rest, "/")
	return r
}

// upward returns the imports of pkgs (package → its imports) that the map
// does not allow, as "from → to".
func upward(pkgs map[string][]string) []string {
	var bad []string
	for from, imports := range pkgs {
		rf := room(from)
		if rf == "third_party" {
			continue
		}
		for _, to := range imports {
			rt := room(to)
			if rt == "" || rt == rf {
				continue
			}
			allowed, known := mayImport[rf]
			ok := false
			for _, a := range allowed {
				ok = ok || a == rt
			}
			if !known || !ok {
				bad = append(bad, from+" → "+to)
			}
		}
	}
	return bad
}

func TestUpwardCheck(t *testing.T) {
	for _, c := range []struct {
		from, to string
		bad      bool
	}{
		{module + "/core/session", module + "/core/hooks", false},
		{module + "/core/session", module + "/host", true},
		{module + "/abi", module + "/core/termtext", true},
		{module + "/abi", module + "/internal/jsonstr", true},
		{module + "/abi", module + "/abi/jsonstr", false},
		{module + "/host", module + "/ui", true},
		{module + "/ui", module + "/rpc", true},
		{module + "/cmd/pi", module + "/ui", false},
		{module + "/internal/yamlerr", module + "/internal/lazyre", false},
		{module + "/internal/scripted", module + "/core/provider", true},
		{module + "/core/tool", "golang.org/x/sys/unix", false},
		{module + "/newroom", module + "/abi", true},
	} {
		got := len(upward(map[string][]string{c.from: {c.to}})) > 0
		if got != c.bad {
			t.Errorf("%s → %s: reported %v, want %v", c.from, c.to, got, c.bad)
		}
	}
}

// TestNoUpwardImports lists every package of the module (the files this
// system builds, which cover every room) and fails on an import the map
// above, ARCHITECTURE.md's, does not allow. Tests are not checked: an
// external test package may drive a room from above.
func TestNoUpwardImports(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH: cannot list the module's packages")
	}
	out, err := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			pkgs[f[0]] = f[1:]
		}
	}
	if len(pkgs) < 50 {
		t.Fatalf("go list found only %d packages:\n%s", len(pkgs), out)
	}
	for _, b := range upward(pkgs) {
		t.Errorf("upward import (see ARCHITECTURE.md): %s", b)
	}
}
