package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
)

// initCost is what the runtime's inittrace reports for a process's package
// initialisation: objects and bytes allocated, by package.
type initCost struct {
	allocs, bytes int
	byPkg         map[string]int // allocs
	bytesByPkg    map[string]int
}

// traceInit runs the binary with GODEBUG=inittrace=1 and sums what its
// packages allocate before main runs. Allocations do not depend on the
// machine's load, so the budget below holds on a busy machine too.
func traceInit(t *testing.T, args ...string) initCost {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
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
		t.Fatalf("no inittrace lines in the helper's stderr:\n%s", stderr.String())
	}
	return c
}

// Every process initialises every package linked in, `pi -p` and (when
// pi re-executes itself as the sandbox helper) every bash call: nothing may
// do real work at start-up. The markdown renderer's dependencies (chroma's
// lexers and styles, the regexps of goldmark, bluemonday, gorilla/css and
// glamour, goldmark's case-folding table), yaml.v3's regexps and
// atotto/clipboard's search for clipboard programs ran in package
// initialisation, 18,700 allocations and 3 MB in all; they now run on
// first use, through the patched copies under third_party/ (each with a
// PI-PATCH.md). A module that does eager work again, an upgrade that
// drops a patch, or a new dependency that compiles regexps at package
// level fails here.
func TestStartupInitBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the helper confines commands on Linux only; the budget is the same elsewhere")
	}
	c := traceInit(t, sandbox.HelperArg, "{}", "--", "true")
	// Allocations per patched module (upstream in brackets).
	budgets := []struct {
		module string
		max    int
	}{
		{"alecthomas/chroma", 30},           // 76,232 unpatched, ~860 with the registry lazy, ~310 with the XML lexers too, 36 with the Go lexers and formatters, 23 with the token-type maps
		{"yuin/goldmark", 120},              // 5,000; 383 with the regexps lazy, ~90 with the attribute filters too
		{"microcosm-cc/bluemonday", 300},    // 5,040
		{"gorilla/css", 50},                 // 1,806
		{"glamour/v2/internal", 50},         // 1,536
		{"glamour/v2/styles", 10},           // 237: a heap allocation per pointer in the style configurations
		{"atotto/clipboard", 50},            // 216
		{"gopkg.in/yaml", 100},              // 276
		{"google/jsonschema-go", 10},        // 296
		{"modelcontextprotocol/go-sdk", 60}, // 216 (mcp 183: its method tables)
		{"dlclark/regexp2", 40},             // 48 objects, 29 KB: its Unicode category table
		{"charmbracelet/x/ansi", 10},        // 19 objects, 17 KB: its zero-width rune tables (and parser's transition table)
		{"wazero/internal/platform", 0},     // 19: its list of huge page sizes, read from sysfs
		{"charmbracelet/ultraviolet", 12},   // 16 objects, 27 KB: its key tables
		{"mvdan.cc/sh", 20},                 // 174: four regexps in fileutil and expand
		{"aymerick/douceur", 0},             // 31: its !important regexp
		{"golang.org/x/net/html", 0},        // 16 objects, 113 KB: its entity tables, made on first use in bluemonday's copy
		{"encoding/gob", 0},                 // 365: the MCP SDK's cursors, now written without it
	}
	by := map[string]int{}
	for pkg, a := range c.byPkg {
		for _, b := range budgets {
			if strings.Contains(pkg, b.module) {
				by[b.module] += a
			}
		}
	}
	t.Logf("package initialisation: %d objects, %d bytes; patched modules: %v", c.allocs, c.bytes, by)
	for _, b := range budgets {
		if by[b.module] > b.max {
			t.Errorf("%s allocates %d objects at start-up (budget %d): its patch under third_party/ is gone or no longer lazy", b.module, by[b.module], b.max)
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
	if c.allocs > 5000 || c.bytes > 1536<<10 {
		t.Errorf("package initialisation allocates %d objects, %d bytes (budget 5,000 and 1.5 MiB); by package: %v", c.allocs, c.bytes, top(c.byPkg, 8))
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
