//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// piProcess is pi running as a separate process (the test binary acting as
// pi), with its own agent dir, so it can be signalled and killed.
type piProcess struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan error
}

func startPi(t *testing.T, c *cli, dir string, args ...string) *piProcess {
	t.Helper()
	p := &piProcess{cmd: exec.Command(os.Args[0], args...), done: make(chan error, 1)}
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "PI_TEST_AS_PI=1", "PI_CODING_AGENT_DIR="+c.agentDir, "HOME="+c.home)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() { p.cmd.Process.Kill() })
	return p
}

func (p *piProcess) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case err := <-p.done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(within):
		t.Fatalf("pi still running after %s\nstderr: %s", within, p.stderr.String())
		return -1
	}
}

// waitFile waits until a file exists and is not empty.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(b)) > 0 {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return ""
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// longBash is a script whose first reply starts a command that outlives a
// normal call: it records its own pid and a background child's, then waits.
func longBash(dir string) []scripted.Reply {
	cmd := "echo $$ > " + filepath.Join(dir, "shell.pid") + "; sleep 300 & echo $! > " + filepath.Join(dir, "child.pid") + "; wait"
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return []scripted.Reply{
		{Text: "Starting a long job.", Calls: []scripted.Call{{ID: "long1", Name: "bash", Args: args}}},
		{Text: "Picked up where we left off."},
	}
}

// TestSIGTERMInLongBashKillsTheGroupAndExits143: a signal during a long
// command kills the whole process group (no orphan), the call still gets a
// result in the session, and pi exits with 143.
func TestSIGTERMInLongBashKillsTheGroupAndExits143(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	work := t.TempDir()
	srv := httptest.NewServer(&scripted.Server{Replies: longBash(work)})
	defer srv.Close()
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m"}]}}}`})
	// The default sandbox: bash runs through the confining helper, and the
	// whole group still goes.
	p := startPi(t, c, proj, "-p", "run the long job")
	shell, _ := strconv.Atoi(waitFile(t, filepath.Join(work, "shell.pid")))
	child, _ := strconv.Atoi(waitFile(t, filepath.Join(work, "child.pid")))
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 20*time.Second); code != 143 {
		t.Fatalf("exit %d, want 143\nstderr: %s", code, p.stderr.String())
	}
	deadline := time.Now().Add(5 * time.Second)
	for (alive(shell) || alive(child)) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(shell) || alive(child) {
		t.Fatalf("orphans left: shell %v child %v", alive(shell), alive(child))
	}
	msgs := sessionMessages(t, c.agentDir)
	if r := resultOf(t, msgs, "long1"); !r.Failed() {
		t.Fatalf("aborted call recorded as success: %q", r.Content.Text())
	}
}

// TestKill9DuringToolCallThenContinue: pi killed outright mid-call leaves a
// call without a result; --continue closes it with an aborted result, so
// the next request's history is valid, and the session goes on.
func TestKill9DuringToolCallThenContinue(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	work := t.TempDir()
	s := &scripted.Server{Replies: longBash(work)}
	srv := httptest.NewServer(s)
	defer srv.Close()
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m"}]}}}`})
	p := startPi(t, c, proj, "-p", "--sandbox", "off", "run the long job")
	child, _ := strconv.Atoi(waitFile(t, filepath.Join(work, "child.pid")))
	p.cmd.Process.Kill()
	p.wait(t, 20*time.Second)
	syscall.Kill(child, syscall.SIGKILL) // pi could not clean up after kill -9

	q := startPi(t, c, proj, "-p", "-c", "--sandbox", "off", "carry on")
	if code := q.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("continue: exit %d\nstderr: %s", code, q.stderr.String())
	}
	if !strings.Contains(q.stderr.String(), "aborted") {
		t.Errorf("continue did not say it closed the dangling call: %s", q.stderr.String())
	}
	if q.stdout.String() != "Picked up where we left off.\n" {
		t.Errorf("stdout %q", q.stdout.String())
	}
	reqs := s.Requests()
	last := string(reqs[len(reqs)-1])
	if !strings.Contains(last, `"tool_call_id":"long1"`) || !strings.Contains(last, "Aborted") {
		t.Fatalf("the continued request does not close call long1:\n%s", last)
	}
}
