//go:build !windows

package builtin

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/piwasm/pi/core/tool"
)

func TestBash(t *testing.T) {
	env, dir := newEnv(t)
	env.Env = []string{"PI_SESSION_ID=sess-1", "PI_MODEL=m"}
	cases := []struct {
		name, args string
	}{
		{"merged_in_order", `{"command":"echo a; echo b >&2; echo c"}`},
		{"no_output", `{"command":"true"}`},
		{"exit_code", `{"command":"echo partial; exit 3"}`},
		{"exit_code_silent", `{"command":"exit 4"}`},
		{"stdin_closed", `{"command":"cat; echo done"}`},
		{"env_and_cwd", `{"command":"echo $PI_SESSION_ID $PI_MODEL; pwd"}`},
		{"killed_by_signal", `{"command":"kill -9 $$"}`},
		{"control_chars", `{"command":"printf 'a\\001b\\tc\\n'"}`},
		{"invalid_utf8", `{"command":"printf 'caf\\351\\n'"}`},
		{"timeout_string_coerced", `{"command":"echo quick","timeout":"5"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			golden(t, "bash/"+c.name, render(call(t, env, "bash", c.args), dir))
		})
	}
}

func tempFileIn(t *testing.T, details json.RawMessage) string {
	t.Helper()
	var d struct {
		FullOutputPath string `json:"fullOutputPath"`
	}
	if err := json.Unmarshal(details, &d); err != nil || d.FullOutputPath == "" {
		t.Fatalf("no full output path in %s", details)
	}
	return d.FullOutputPath
}

func TestBashHugeOutputKeepsTailAndFile(t *testing.T) {
	env, _ := newEnv(t)
	r := call(t, env, "bash", `{"command":"seq 1 100000"}`)
	text := r.Text()
	path := tempFileIn(t, r.Details)
	if !strings.HasSuffix(text, "[Lines 98001-100000 of 100000 shown. Full output: "+path+"]") {
		t.Fatalf("notice: %q", text[max(0, len(text)-200):])
	}
	if !strings.HasPrefix(text, "98001\n") || r.IsError {
		t.Fatalf("head: %q", text[:20])
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 || filepath.Dir(path) != env.TempDir {
		t.Fatalf("temp file %v %v", st, err)
	}
	full, _ := os.ReadFile(path)
	want, _ := exec.Command("seq", "1", "100000").Output()
	if string(full) != string(want) {
		t.Fatalf("full output differs: %d vs %d bytes", len(full), len(want))
	}
}

func TestBashOutputBoundaries(t *testing.T) {
	env, _ := newEnv(t)
	for _, c := range []struct {
		name, cmd string
		cut       bool
		notice    string
	}{
		{"2000 lines fit", "seq 1 2000", false, ""},
		{"2001 lines cut", "seq 1 2001", true, "[Lines 2-2001 of 2001 shown. Full output: "},
		{"50KB fits", "head -c 51200 /dev/zero | tr '\\0' x", false, ""},
		{"one byte more", "head -c 51201 /dev/zero | tr '\\0' x", true, "[Only the last 50.0KB of line 1 (50.0KB long) is shown. Full output: "},
		{"bytes cut whole lines", "for i in $(seq 1 1000); do printf '%099d\\n' $i; done", true, "[Lines 489-1000 of 1000 shown, cut at 50.0KB. Full output: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := call(t, env, "bash", `{"command":`+strconv.Quote(c.cmd)+`}`)
			text := r.Text()
			if !c.cut {
				if strings.Contains(text, "Full output") || len(r.Details) > 0 {
					t.Fatalf("unexpected cut: %q", text[max(0, len(text)-120):])
				}
				return
			}
			if !strings.Contains(text, c.notice) {
				t.Fatalf("want %q in %q", c.notice, text[max(0, len(text)-200):])
			}
			tempFileIn(t, r.Details)
		})
	}
}

// alive reports whether pid names a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill -0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] != "Z"
}

// gone waits (generously: a loaded machine is slow) for pid to end.
func gone(pid int) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return true
		}
	}
	return false
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if s := strings.TrimSpace(string(b)); s != "" {
			pid, err := strconv.Atoi(s)
			if err == nil {
				return pid
			}
		}
	}
	t.Fatal("the command never wrote its child's pid")
	return 0
}

func TestBashTimeoutKillsGroup(t *testing.T) {
	env, dir := newEnv(t)
	pidFile := filepath.Join(dir, "pid")
	r := call(t, env, "bash", `{"command":"echo started; sleep 300 & echo $! > pid; wait","timeout":0.5}`)
	if !r.IsError || r.Text() != "started\n\n\nCommand timed out after 0.5 seconds" {
		t.Fatalf("%v %q", r.IsError, r.Text())
	}
	if pid := readPid(t, pidFile); !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("background sleep %d outlived the timeout", pid)
	}
}

func TestBashAbortKillsGroup(t *testing.T) {
	env, dir := newEnv(t)
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan tool.Result, 1)
	go func() {
		done <- callCtx(t, ctx, env, "bash", `{"command":"(sleep 300; echo never) & echo $! > pid; sleep 300"}`, nil)
	}()
	pid := readPid(t, pidFile)
	cancel()
	r := <-done
	if !r.IsError || !strings.HasSuffix(r.Text(), "Command aborted") {
		t.Fatalf("%v %q", r.IsError, r.Text())
	}
	if !gone(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("background job %d outlived the abort", pid)
	}
}

// A command that leaves a background child holding the output pipe still
// finishes when the shell exits.
func TestBashBackgroundChildDoesNotHoldCall(t *testing.T) {
	env, dir := newEnv(t)
	start := time.Now()
	r := call(t, env, "bash", `{"command":"sleep 30 & echo $! > pid; echo hi"}`)
	pid := readPid(t, filepath.Join(dir, "pid"))
	defer syscall.Kill(pid, syscall.SIGKILL)
	if r.Text() != "hi\n" || r.IsError {
		t.Fatalf("%q", r.Text())
	}
	if time.Since(start) > 20*time.Second {
		t.Fatal("the call waited for the background child")
	}
}

func TestBashUpdates(t *testing.T) {
	env, _ := newEnv(t)
	var mu sync.Mutex
	var got []string
	upd := func(p tool.Result) {
		mu.Lock()
		got = append(got, p.Text())
		mu.Unlock()
	}
	r := callCtx(t, context.Background(), env, "bash", `{"command":"echo one; sleep 0.3; echo two; sleep 0.3; echo three"}`, upd)
	if r.Text() != "one\ntwo\nthree\n" {
		t.Fatalf("%q", r.Text())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || !strings.HasPrefix(got[0], "one") {
		t.Fatalf("updates %q", got)
	}
	for i := 1; i < len(got); i++ {
		if !strings.HasPrefix(got[i], got[i-1]) {
			t.Fatalf("updates go backwards: %q", got)
		}
	}
}

// recordingShell wraps BashShell the way a sandbox would, with attributes of
// its own that the bash tool must keep.
type recordingShell struct{ scripts []string }

func (s *recordingShell) Command(ctx context.Context, script, dir string, env []string) (*exec.Cmd, error) {
	s.scripts = append(s.scripts, script)
	cmd, err := BashShell{}.Command(ctx, script, dir, env)
	if err == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Pgid: 999999}
	}
	return cmd, err
}

func TestBashUsesShell(t *testing.T) {
	env, _ := newEnv(t)
	sh := &recordingShell{}
	env.Shell = sh
	r := call(t, env, "bash", `{"command":"echo $$ $(ps -o pgid= -p $$)"}`)
	f := strings.Fields(r.Text())
	if len(sh.scripts) != 1 || len(f) != 2 || f[0] != f[1] {
		t.Fatalf("scripts %v, pid/pgid %q", sh.scripts, r.Text())
	}
}

func TestBashMissingCwd(t *testing.T) {
	env, dir := newEnv(t)
	env.Cwd = filepath.Join(dir, "gone")
	r := call(t, env, "bash", `{"command":"true"}`)
	if !r.IsError || !strings.Contains(r.Text(), "does not exist") {
		t.Fatalf("%q", r.Text())
	}
}
