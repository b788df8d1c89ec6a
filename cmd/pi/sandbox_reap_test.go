//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// running reports whether pid runs (a zombie counts as gone).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestCommandsDieWithPi is issue 19's "a setsid child outlives pi": a
// command leaves a process in a session of its own, and one merely in the
// background; when pi -p exits, neither may still run.
func TestCommandsDieWithPi(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Join(c.home, "proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "setsid sleep 300 >/dev/null 2>&1 < /dev/null & echo $! > setsid.pid; sleep 300 >/dev/null 2>&1 < /dev/null & echo $! > bg.pid"
	args, _ := json.Marshal(map[string]any{"command": script})
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Calls: []scripted.Call{{ID: "s", Name: "bash", Args: args}}}, {Text: "done"}})
	p := startPi(t, c, dir, "-p", "leave something running")
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, p.stderr.String())
	}
	for _, f := range []string{"setsid.pid", "bg.pid"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatalf("%s: %v (stdout %q)", f, err, p.stdout.String())
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for running(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if running(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s: process %d outlived pi", f, pid)
		}
	}
}
