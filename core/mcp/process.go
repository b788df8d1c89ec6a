package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// process is a running stdio server: pi writes requests to its stdin and
// reads its stdout; the end of its stderr is kept for error reports.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.Reader
	stderr *tail
	exited chan struct{}
	// removeTmp removes the server's own temp dir, if it has one, once
	// it stopped.
	removeTmp func()

	once sync.Once
}

// startProcess starts the server's command through the launcher, in a
// process group of its own so that stopping it also stops what a wrapper
// such as npx started.
func (s *server) startProcess(ctx context.Context) (*process, error) {
	var env []string
	if s.m.opts.Environ != nil {
		env = s.m.opts.Environ()
	}
	for _, kv := range s.cfg.Env {
		v, err := resolveValue(ctx, kv[1], fmt.Sprintf("env %q", kv[0]), s.m.opts.Getenv, s.cfg.Cwd)
		if err != nil {
			return nil, err
		}
		env = append(env, kv[0]+"="+v)
	}
	argv := append([]string{s.cfg.Command}, s.cfg.Args...)
	tmp, private, err := ServerTemp(s.m.opts.TempDir, s.m.opts.Cwd, s.cfg.Name)
	if err != nil {
		return nil, fmt.Errorf("create the server's temp dir: %w", err)
	}
	removeTmp := func() {
		if private {
			os.RemoveAll(tmp)
		}
	}
	if private {
		env = append(env, "TMPDIR="+tmp)
	}
	var cmd *exec.Cmd
	if s.m.opts.Launch != nil {
		cmd, err = s.m.opts.Launch(s.cfg, argv, tmp)
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	if err != nil {
		removeTmp()
		return nil, err
	}
	cmd.Dir = s.cfg.Cwd
	cmd.Env = env
	newProcessGroup(cmd)
	p := &process{cmd: cmd, stderr: &tail{max: 4096}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.stdout = newJSONLines(stdout, sdk.DefaultMaxLineLength, func(line []byte, tooLong bool) {
		what := "a line that is not JSON-RPC"
		if tooLong {
			what = fmt.Sprintf("a line longer than %d bytes", sdk.DefaultMaxLineLength)
		}
		if len(line) > 200 {
			line = append(line[:200:200], "…"...)
		}
		s.m.logText(s.cfg.Name, fmt.Sprintf("stdout: skipped %s: %q", what, line))
	})
	if err := cmd.Start(); err != nil {
		removeTmp()
		return nil, fmt.Errorf("start %s: %w", s.cfg.Command, err)
	}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	p.removeTmp = removeTmp
	return p, nil
}

func (p *process) Write(b []byte) (int, error) { return p.stdin.Write(b) }

// Close stops the server as the MCP specification asks: stdin closed, a
// moment to exit, then SIGTERM, then SIGKILL, both to its process group.
func (p *process) Close() error {
	p.once.Do(func() {
		if p.removeTmp != nil {
			defer p.removeTmp()
		}
		p.stdin.Close()
		wait := func(d time.Duration) bool {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-p.exited:
				return true
			case <-t.C:
				return false
			}
		}
		if wait(2 * time.Second) {
			killGroup(p.cmd, false) // what the server left behind
			return
		}
		killGroup(p.cmd, false)
		if wait(2 * time.Second) {
			return
		}
		killGroup(p.cmd, true)
		wait(2 * time.Second)
	})
	return nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(trimRight(t.buf))
}

func trimRight(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}
