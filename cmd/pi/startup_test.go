package main

import (
	"bufio"
	"bytes"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// initCost is what the runtime's inittrace reports for a process's package
// initialisation: objects and bytes allocated, by package.
type initCost struct {
	allocs, bytes int
	byPkg         map[string]int // allocs
	bytesByPkg    map[string]int
}

// traceInit runs bin with GODEBUG=inittrace=1 and sums what its
// packages allocate before main runs. Allocations do not depend on the
// machine's load, so the budget below holds on a busy machine too.
func traceInit(t *testing.T, bin string, args ...string) initCost {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // the exit status does not matter, the trace does
	c := initCost{byPkg: map[string]int{}, bytesByPkg: map[string]int{}}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init PKG @0.5 ms, 0.1 ms clock, 1234 bytes, 12 allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[10] != "allocs" {
			continue
		}
		b, _ := strconv.Atoi(f[7])
		a, _ := strconv.Atoi(f[9])
		c.bytes += b
		c.allocs += a
		c.byPkg[f[1]] += a
		c.bytesByPkg[f[1]] += b
	}
	if len(c.byPkg) == 0 {
		t.Fatalf("no inittrace lines in %s's stderr:\n%s", bin, stderr.String())
	}
	return c
}

// noUIPi is cmd/pi as make build builds bin/pi, the program every `pi -p`
// runs: without the terminal UI (tag noui) and static. Built once per test
// binary, the first time a test asks for it.
var noUIPi = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "pi-noui-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "pi")
	cmd := goCmd(".", "build", "-tags", "noui", "-o", out, ".")
	cmd.Env = append(cmd.Env, "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build -tags noui: %v\n%s", err, b)
	}
	return out, nil
})

// uiModules are the modules only the interactive UI uses. Their package
// initialisers are expensive (chroma alone parses every embedded lexer and
// style: 60,000 allocations and over 20 ms), and upstream runs them at
// start-up, so they must stay out of bin/pi; bin/pi-ui pays for them once
// per interactive session (RATIONALE.md, "Two binaries").
var uiModules = []string{
	"charm.land/bubbletea", "charm.land/bubbles", "charm.land/lipgloss", "charm.land/glamour",
	"github.com/alecthomas/chroma", "github.com/yuin/goldmark", "github.com/microcosm-cc/bluemonday",
	"github.com/gorilla/css", "github.com/aymerick/douceur", "github.com/dlclark/regexp2",
	"github.com/atotto/clipboard", "github.com/charmbracelet/",
}

// Every process initialises every package linked in: each `pi -p`, and
// each bash call where pi re-executes itself as the sandbox helper. bin/pi
// links none of the UI's modules, and what it does link may do little at
// start-up. A UI module pulled into the noui build, or a new dependency
// that compiles regexps or builds tables at package level, fails here.
func TestStartupInitBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds bin/pi")
	}
	pi, err := noUIPi()
	if err != nil {
		t.Fatal(err)
	}
	info, err := buildinfo.ReadFile(pi)
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range info.Deps {
		for _, m := range uiModules {
			if strings.HasPrefix(dep.Path, m) {
				t.Errorf("bin/pi (tag noui) links %s %s, a module of the terminal UI", dep.Path, dep.Version)
			}
		}
	}
	c := traceInit(t, pi, "--version")
	// Allocations per module linked into bin/pi (upstream in brackets).
	// yaml.v3 (276: two regexps), mvdan.cc/sh (174: four regexps in
	// fileutil and expand), jsonschema-go (296: the Schema type's field
	// table, a regexp) and the MCP SDK (183: its method tables; and
	// encoding/gob, 362, for its cursors) are as released and counted in
	// the total below.
	budgets := []struct {
		module string
		max    int
	}{
		// wazero as released reads its list of huge page sizes from
		// sysfs at start-up (13 objects; the fork did it on first use,
		// docs/upstream/wazero.md): counted in the total, held here so
		// that it does not grow unseen.
		{"wazero/internal/platform", 16},
	}
	by := map[string]int{}
	for pkg, a := range c.byPkg {
		for _, b := range budgets {
			if strings.Contains(pkg, b.module) {
				by[b.module] += a
			}
		}
	}
	t.Logf("package initialisation: %d objects, %d bytes; by module: %v", c.allocs, c.bytes, by)
	for _, b := range budgets {
		if by[b.module] > b.max {
			t.Errorf("%s allocates %d objects at start-up (budget %d)", b.module, by[b.module], b.max)
		}
	}
	// pi's own packages: a table made in package initialisation rather
	// than on first use (host's CRC-32C table was 9 KiB and 0.36 ms of
	// every process) shows in its bytes. shellcmd's maps of shell words
	// and wrappers are the largest, at about 5 KiB (its table of git's
	// commands, 15 KiB more as a map, is now a sorted constant array).
	for pkg, b := range c.bytesByPkg {
		max := 8 << 10
		if strings.HasPrefix(pkg, "github.com/piwasm/pi/") && b > max {
			t.Errorf("%s allocates %d bytes in package initialisation (budget %d): make what it builds on first use", pkg, b, max)
		}
	}
	// Packages print mode does not use run no initialiser at all: each one
	// costs every process a 64 KB window of text the kernel maps around
	// the page fault, whatever little it does (abi's key-name map and
	// error values, mcp's regexp and error: 0.15-0.2 MiB of -p hello's
	// peak RSS). Constant errors and switches need none.
	for _, pkg := range []string{"github.com/piwasm/pi/abi", "github.com/piwasm/pi/core/mcp"} {
		if _, ok := c.bytesByPkg[pkg]; ok {
			t.Errorf("%s has a package initialiser again (%d bytes); build what it makes on first use, or as constants", pkg, c.bytesByPkg[pkg])
		}
	}
	// About 1,850 objects and 270 KB with the MCP SDK, jsonschema-go,
	// yaml.v3 and mvdan.cc/sh as released, and about 960 objects more
	// for esbuild as released (its internal/compat feature tables and
	// pkg/api), which bin/pi links to bundle TypeScript extensions in
	// process: 2,908 objects and 407 KiB in all when this budget was set.
	// The UI's modules alone would be 75,000 and 6 MB.
	if c.allocs > 3000 || c.bytes > 420<<10 {
		t.Errorf("package initialisation allocates %d objects, %d bytes (budget 3,000 and 420 KiB); by package: %v", c.allocs, c.bytes, top(c.byPkg, 8))
	}
}

// top lists the n packages that allocate most.
func top(m map[string]int, n int) []string {
	var out []string
	for len(out) < n && len(m) > 0 {
		best, ba := "", -1
		for k, v := range m {
			if v > ba {
				best, ba = k, v
			}
		}
		out = append(out, best+"="+strconv.Itoa(ba))
		delete(m, best)
	}
	return out
}
