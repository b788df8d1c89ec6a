package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/piwasm/pi/core/prompt"
	"github.com/piwasm/pi/core/session"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/internal/lazyre"
)

// BashResult is a command the user ran directly (RPC "bash", "!cmd" in
// the terminal UI), in the established harness's shape.
type BashResult struct {
	Output         string `json:"output"`
	ExitCode       int    `json:"exitCode"`
	Cancelled      bool   `json:"cancelled"`
	Truncated      bool   `json:"truncated"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
}

var exitLine = lazyre.New(`(?:^|\n\n)Command exited with code (\d+)$`)

// Bash runs a command through the session's own bash tool, so the
// sandbox that confines the model's commands confines the user's too.
// update receives the output so far. The command is recorded in the
// session as a bashExecution message, as the established harness records
// it: at once when the agent is idle, before the next run starts when it
// is working (a message in the middle of a turn would split a tool call
// from its result). Without addToContext the record is kept out of what
// the model is sent.
func (rt *Runtime) Bash(ctx context.Context, command string, addToContext bool, update func(output string)) (BashResult, error) {
	bash, ok := rt.runner.Tools.Get("bash")
	if !ok || bash.Run == nil {
		return BashResult{}, errors.New("the bash tool is not available in this session")
	}
	call := tool.Call{ID: "direct", Name: "bash", Args: map[string]any{"command": command}}
	res, err := bash.Run(ctx, call, func(p tool.Result) {
		if update != nil {
			update(p.Text())
		}
	})
	if err != nil {
		return BashResult{}, fmt.Errorf("run %q: %w", command, err)
	}
	out := BashResult{Output: res.Text()}
	switch {
	case ctx.Err() != nil || strings.HasSuffix(out.Output, "Command aborted"):
		out.Cancelled = true
		out.Output = strings.TrimSuffix(strings.TrimSuffix(out.Output, "Command aborted"), "\n\n")
	case res.IsError:
		if m := exitLine().FindStringSubmatch(out.Output); m != nil {
			out.ExitCode, _ = strconv.Atoi(m[1])
			out.Output = out.Output[:len(out.Output)-len(m[0])]
		} else {
			out.ExitCode = 1
		}
	}
	if out.Output == "(no output)" {
		out.Output = ""
	}
	var det struct {
		Truncation     json.RawMessage `json:"truncation"`
		FullOutputPath string          `json:"fullOutputPath"`
	}
	if len(res.Details) > 0 && json.Unmarshal(res.Details, &det) == nil {
		out.Truncated = len(det.Truncation) > 0 && string(det.Truncation) != "null"
		out.FullOutputPath = det.FullOutputPath
	}
	m := prompt.Message{Role: "bashExecution", Command: command, Output: out.Output, Cancelled: out.Cancelled,
		Truncated: out.Truncated, FullOutputPath: out.FullOutputPath, ExcludeFromContext: !addToContext,
		Timestamp: time.Now().UnixMilli()}
	if !out.Cancelled {
		code := out.ExitCode
		m.ExitCode = &code
	}
	if err := rt.recordBash(m); err != nil {
		return out, err
	}
	return out, nil
}

// recordBash writes a direct command's message into the session now, or
// holds it for the start of the next run while one is going.
func (rt *Runtime) recordBash(m prompt.Message) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.running {
		rt.pendingBash = append(rt.pendingBash, m)
		return nil
	}
	return rt.appendBashLocked(m)
}

// appendBashLocked records direct commands' messages; rt.mu is held.
func (rt *Runtime) appendBashLocked(msgs ...prompt.Message) error {
	for i := range msgs {
		m := msgs[i]
		if tr := rt.runner.Transcript; tr != nil {
			if err := tr.Append(session.Entry{Type: session.TypeMessage, Message: &m}); err != nil {
				return fmt.Errorf("record the command %q in the session: %w", m.Command, err)
			}
		}
		rt.messages = append(rt.messages, m)
	}
	return nil
}
