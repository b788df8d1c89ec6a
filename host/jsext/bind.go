package jsext

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/piwasm/pi/core/tool/builtin"
)

// BindTools gives the runtime pi's tool environment once the run has built
// it: extensions then run commands through its shell (the sandboxed bash
// of the bash tool, with the same environment) and reach files under its
// guard (the sandbox's read deny list and writable roots). The extensions
// were loaded before it existed; until it is bound, commands are refused
// and writes stay in the project.
func (r *Runtime) BindTools(env builtin.Env) {
	shell := env.Shell
	if shell == nil {
		shell = builtin.BashShell{}
	}
	environ := func() []string {
		base := os.Environ()
		if env.Environ != nil {
			base = env.Environ()
		}
		return append(base, env.Env...)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cfg.Exec = func(ctx context.Context, req ExecRequest) (ExecResult, error) {
		return runShell(ctx, shell, environ(), req)
	}
	if g := env.Guard; g != nil {
		r.cfg.Guard = func(write bool, resolved string) error {
			op := builtin.Read
			if write {
				op = builtin.Write
			}
			return g(op, resolved)
		}
	}
}

// BindSession makes ctx.sessionManager read the session file that path
// returns at the time of the call (the session can change during a run).
func (r *Runtime) BindSession(path func() string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cfg.Session = func() SessionData { return SessionFromFile(path()) }
}

// maxExecOutput bounds what one command may give an extension per stream.
const maxExecOutput = 8 << 20

type capped struct {
	buf bytes.Buffer
	cut bool
}

func (c *capped) Write(p []byte) (int, error) {
	if room := maxExecOutput - c.buf.Len(); room < len(p) {
		c.cut = true
		if room > 0 {
			c.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return c.buf.Write(p)
}

func runShell(ctx context.Context, shell builtin.Shell, environ []string, req ExecRequest) (ExecResult, error) {
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, req.Timeout)
		defer cancel()
	}
	cmd, err := shell.Command(ctx, req.Command, req.Cwd, environ)
	if err != nil {
		return ExecResult{}, err
	}
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if req.Stdin != "" {
		cmd.Stdin = strings.NewReader(req.Stdin)
	}
	err = cmd.Run()
	res := ExecResult{Stdout: stdout.buf.String(), Stderr: stderr.buf.String()}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			if ctx.Err() != nil {
				return ExecResult{Stdout: res.Stdout, Stderr: res.Stderr, Code: -1, Killed: true}, nil
			}
			return ExecResult{}, err
		}
		res.Code = ee.ExitCode()
		if res.Code < 0 || ctx.Err() != nil {
			res.Killed = true
		}
	}
	return res, nil
}

// SessionFromFile reads a session file of the established format: the
// header line, then one entry per line. The leaf is the last entry; a
// session_info entry names the session.
func SessionFromFile(path string) SessionData {
	d := SessionData{File: path, Entries: []json.RawMessage{}}
	if path == "" {
		return d
	}
	f, err := os.Open(path)
	if err != nil {
		return d
	}
	defer f.Close()
	br := bufio.NewReader(io.LimitReader(f, 256<<20))
	first := true
	for {
		line, err := br.ReadBytes('\n')
		line = bytes.TrimSpace(line)
		if len(line) > 0 && json.Valid(line) {
			var head struct {
				Type string `json:"type"`
				ID   string `json:"id"`
				Name string `json:"name"`
			}
			json.Unmarshal(line, &head)
			switch {
			case first && head.Type == "session":
				d.Header = json.RawMessage(line)
			default:
				d.Entries = append(d.Entries, json.RawMessage(line))
				if head.ID != "" {
					d.LeafID = head.ID
				}
				if head.Type == "session_info" {
					d.Name = head.Name
				}
			}
			first = false
		}
		if err != nil {
			break
		}
	}
	return d
}
