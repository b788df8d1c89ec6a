package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// runPi runs the test binary as pi itself (main, its own process, as a
// user would run it) with the cli's agent dir and home, plus env.
func (c *cli) runPi(env []string, args ...string) (stdout, stderr string, code int) {
	c.t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "PI_TEST_AS_PI=1", "PI_CODING_AGENT_DIR="+c.agentDir, "HOME="+c.home)
	cmd.Env = append(cmd.Env, env...)
	cmd.Dir = c.home
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		c.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

var goMCPServer = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "pi-mcpserver-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "mcpserver")
	if b, err := goCmd(".", "build", "-o", bin, "./testdata/mcpserver").CombinedOutput(); err != nil {
		return "", errors.New(string(b))
	}
	return bin, nil
})

// mcpServerBin is the tests' Go MCP server (testdata/mcpserver, after the
// SDK's hello example), built once.
func mcpServerBin(t *testing.T) string {
	t.Helper()
	bin, err := goMCPServer()
	if err != nil {
		t.Fatalf("build testdata/mcpserver: %v", err)
	}
	return bin
}

var referenceServers = sync.OnceValues(func() (string, error) {
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, ".cache", "mcp-servers")
	cmd := exec.Command(filepath.Join(root, "scripts", "mcp-servers.sh"), dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", errors.New(string(b))
	}
	return filepath.Join(dir, "node_modules", "@modelcontextprotocol"), nil
})

// referenceServer is the entry point of one of the MCP project's reference
// servers from the npm registry (everything, filesystem), installed once
// into .cache by scripts/mcp-servers.sh (make mcp-servers). Without npm and
// node the test is skipped.
func referenceServer(t *testing.T, name string) string {
	t.Helper()
	for _, tool := range []string{"npm", "node"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the MCP reference servers from the npm registry cannot run", tool)
		}
	}
	dir, err := referenceServers()
	if err != nil {
		t.Fatalf("install the MCP reference servers (scripts/mcp-servers.sh): %v", err)
	}
	p := filepath.Join(dir, "server-"+name, "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the reference server %s is not where scripts/mcp-servers.sh puts it: %v", name, err)
	}
	return p
}

func mcpJSON(t *testing.T, servers map[string]any) string {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{"mcpServers": servers}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A print-mode session calls a tool of the MCP project's reference server
// (node, from npm) and one of the Go server built from the SDK's example,
// both over stdio and confined; the results reach the model. The first
// request declares the tools and lists them in the prompt's tools section.
func TestMCPStdioToolsInASession(t *testing.T) {
	everything := referenceServer(t, "everything")
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Text: "Calling.", Calls: []scripted.Call{
			{ID: "c1", Name: "mcp__everything__echo", Args: json.RawMessage(`{"message":"hey"}`)},
			{ID: "c2", Name: "mcp__go__greet", Args: json.RawMessage(`{"name":"pi"}`)},
			{ID: "c3", Name: "mcp__everything__get_roots_list", Args: json.RawMessage(`{}`)},
		}},
		{Text: "done"},
	})
	proj := filepath.Join(c.home, "proj")
	writeFiles(t, proj, map[string]string{"README": "x"})
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{
		"everything": map[string]any{"command": "node", "args": []string{everything, "stdio"}},
		"go":         map[string]any{"command": mcpServerBin(t), "exposure": "direct"},
	})})
	out, errs, code := c.runPi(nil, "-p", "--cwd", proj, "--no-extensions", "say hi")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if out != "done\n" {
		t.Errorf("stdout %q (stderr %s)", out, errs)
	}
	t.Logf("stderr: %s", errs)
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first := string(reqs[0])
	for _, want := range []string{`"name":"mcp__everything__echo"`, `"name":"mcp__go__greet"`, "say hi", `"name":"read"`} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %s: %.600s", want, first)
		}
	}
	if !strings.Contains(first, "- mcp__go__greet: say hi") {
		t.Errorf("the prompt's tools section does not list mcp__go__greet")
	}
	second := string(reqs[1])
	for _, want := range []string{"Echo: hey", "Hi pi", "file://" + proj} {
		if !strings.Contains(second, want) {
			t.Errorf("the results did not reach the model: no %q in %s", want, second[strings.Index(second, `"role":"tool"`):])
		}
	}
}

// A server that never answers costs the session its timeout, no more:
// the turn goes on with the other servers' tools and a note on stderr.
func TestMCPServerThatNeverAnswers(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "mcp__go__greet", Args: json.RawMessage(`{"name":"pi"}`)}}},
		{Text: "done"},
	})
	bin := mcpServerBin(t)
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{
		"mute": map[string]any{"command": bin, "args": []string{"-hang"}, "timeout": 1},
		"go":   map[string]any{"command": bin},
	})})
	start := time.Now()
	out, errs, code := c.runPi(nil, "-p", "--no-extensions", "hi")
	took := time.Since(start)
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	// The mute server's one second, the builds and the model: well under
	// the 10 s a first prompt may wait.
	if took > 8*time.Second {
		t.Errorf("the session took %s", took)
	}
	if !strings.Contains(string(s.Requests()[1]), "Hi pi") {
		t.Errorf("the live server's result did not reach the model")
	}
	if strings.Contains(string(s.Requests()[0]), "mcp__mute__") {
		t.Errorf("the mute server's tools were declared")
	}
}
