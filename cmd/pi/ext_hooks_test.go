package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestExtTestEveryHook runs pi ext test on hooks beyond the four prompt
// hooks it once knew: each event reaches the guest and its answer is
// printed as the hook's result.
func TestExtTestEveryHook(t *testing.T) {
	c := newCLI(t)
	for _, tc := range []struct {
		ext, hook, event, want string
	}{
		{"policy-guard", "tool_call", `{"toolCallId":"1","toolName":"bash","source":"builtin","input":{"command":"git push --force origin main"},"cwd":"/tmp"}`, `"block": true`},
		{"redact-secrets", "tool_result", `{"toolCallId":"1","toolName":"bash","source":"builtin","input":{},"content":[{"type":"text","text":"key AKIAIOSFODNN7EXAMPLE"}]}`, `[redacted`},
		{"session-log", "session_start", `{"reason":"startup"}`, `{}`},
		{"session-log", "session_before_fork", `{"entryId":"e1","position":"at"}`, `{}`},
	} {
		t.Run(tc.ext+"/"+tc.hook, func(t *testing.T) {
			dir := examplePlugin(t, tc.ext)
			c.stdinText = tc.event
			out := c.must("ext", "test", dir, "--hook", tc.hook, "--event", "-", "--grant", "--json")
			var r struct {
				Extension, Hook string
				Result          json.RawMessage
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			res, _ := json.MarshalIndent(json.RawMessage(r.Result), "", " ")
			if r.Hook != tc.hook || !strings.Contains(string(res), tc.want) {
				t.Fatalf("want %s in the result:\n%s", tc.want, out)
			}
		})
	}
	// A misspelt key is refused, not dropped.
	c.stdinText = `{"reasn":"startup"}`
	if _, errs, code := c.run("ext", "test", examplePlugin(t, "session-log"), "--hook", "session_start", "--event", "-"); code == 0 || !strings.Contains(errs, "not a valid session_start event") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
