package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"strconv"
	"strings"

	"github.com/piwasm/pi/core/tool"
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
// update receives the output so far. With addToContext the command and
// its output go in front of the next line sent to the model.
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
	if addToContext {
		rt.AddContext(fmt.Sprintf("Ran `%s`\n```\n%s\n```", command, strings.TrimRight(out.Output, "\n")))
	}
	return out, nil
}
