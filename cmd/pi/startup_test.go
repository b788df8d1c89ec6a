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
	c := initCost{byPkg: map[string]int{}}
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
	}
	if len(c.byPkg) == 0 {
		t.Fatalf("no inittrace lines in the helper's stderr:\n%s", stderr.String())
	}
	return c
}

// Every bash call starts pi again as the sandbox helper, and every pi
// process initialises every package linked in: nothing may do real work at
// start-up. The syntax highlighter's lexers and styles (chroma, under the
// UI's markdown renderer) used to parse their XML in package init, 60,000
// allocations and 4 MB in every process; they now load on first use (see
// third_party/chroma/PI-PATCH.md).
func TestStartupInitBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the helper confines commands on Linux only; the budget is the same elsewhere")
	}
	c := traceInit(t, sandbox.HelperArg, "{}", "--", "true")
	chroma := 0
	for pkg, a := range c.byPkg {
		if strings.Contains(pkg, "alecthomas/chroma") {
			chroma += a
		}
	}
	t.Logf("package initialisation: %d objects, %d bytes (chroma %d objects)", c.allocs, c.bytes, chroma)
	if chroma > 2000 {
		t.Errorf("chroma's packages allocate %d objects at start-up (budget 2,000): lexers or styles are loaded eagerly again", chroma)
	}
	if c.allocs > 25000 || c.bytes > 4<<20 {
		t.Errorf("package initialisation allocates %d objects, %d bytes (budget 25,000 and 4 MiB); by package: %v", c.allocs, c.bytes, top(c.byPkg, 8))
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
