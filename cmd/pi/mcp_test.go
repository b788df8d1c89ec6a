//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/piwasm/pi/core/sandbox"
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

// MCP tools pass the same guards as built-in ones: permission rules by
// name, name pattern and argument; policy-guard's tool_call hook;
// redact-secrets' tool_result hook. Every refusal is recorded in the
// session with its source, and JSON mode reports the calls with the
// established harness's events.
func TestMCPToolsAreGuarded(t *testing.T) {
	c := newCLI(t)
	fakeKey := "AKIA" + "IOSFODNN7EXAMPLE"
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{
			{ID: "c1", Name: "mcp__go__writeFile", Args: json.RawMessage(`{"path":"/tmp/secret.txt","text":"x"}`)},
			{ID: "c2", Name: "mcp__go__dial", Args: json.RawMessage(`{"addr":"127.0.0.1:1"}`)},
			{ID: "c3", Name: "mcp__go__writeFile", Args: json.RawMessage(`{"path":".env","text":"x"}`)},
			{ID: "c4", Name: "mcp__go__greet", Args: json.RawMessage(`{"name":"` + fakeKey + `"}`)},
		}},
		{Text: "done"},
	})
	proj := filepath.Join(c.home, "proj")
	writeFiles(t, proj, map[string]string{"README": "x"})
	writeFiles(t, c.agentDir, map[string]string{
		"mcp.json":      mcpJSON(t, map[string]any{"go": map[string]any{"command": mcpServerBin(t)}}),
		"settings.json": `{"permissions":{"deny":["mcp__go__writeFile(path=*secret*)"],"ask":["mcp__go__d*"]}}`,
	})
	out, errs, code := c.runPi(nil, "-p", "--mode", "json", "--cwd", proj, "--no-extensions",
		"-e", examplePlugin(t, "policy-guard"), "-e", examplePlugin(t, "redact-secrets"), "go")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	msgs := sessionMessages(t, c.agentDir)
	check := func(id string, isError bool, has string) {
		t.Helper()
		m := resultOf(t, msgs, id)
		if text := textOf(m); (m.IsError != nil && *m.IsError) != isError || !strings.Contains(text, has) {
			t.Errorf("%s: isError %v, %q; want %v and %q", id, m.IsError != nil && *m.IsError, text, isError, has)
		}
	}
	check("c1", true, "deny rule mcp__go__writefile(path=*secret*)")
	check("c2", true, "needs the user's approval")
	check("c3", true, "extension:policy-guard")
	check("c4", false, "Hi [redacted:aws-access-key]")
	if _, err := os.Stat("/tmp/secret.txt"); err == nil {
		t.Errorf("the denied call ran")
	}
	if _, err := os.Stat(filepath.Join(proj, ".env")); err == nil {
		t.Errorf("the call policy-guard refused ran")
	}
	for _, req := range s.Requests() {
		if strings.Contains(string(req), fakeKey) && !strings.Contains(string(req), `"arguments"`) {
			t.Fatal("the key reached the model in a result")
		}
	}
	files, _ := filepath.Glob(filepath.Join(c.agentDir, "sessions", "*", "*.jsonl"))
	raw, _ := os.ReadFile(files[0])
	for _, want := range []string{`"tool":"mcp__go__writeFile","outcome":"deny"`, `"source":"extension:policy-guard"`, `"tool":"mcp__go__dial","outcome":"deny"`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the session does not record %s", want)
		}
	}
	for _, want := range []string{`"type":"tool_execution_start"`, `"toolName":"mcp__go__greet"`, `"type":"tool_execution_end"`} {
		if !strings.Contains(out, want) {
			t.Errorf("JSON mode does not report %s", want)
		}
	}
}

// A stdio server runs confined like bash, under its own policy: the MCP
// project's filesystem server may not write the project (outside its
// state directory and the temp dir), the Go server may write its state
// directory but not open a TCP socket without a network grant; the kernel
// refuses, the model reads the error, the session goes on.
func TestMCPStdioServersAreConfined(t *testing.T) {
	filesystem := referenceServer(t, "filesystem")
	c := newCLI(t)
	tmp := filepath.Join(c.home, "tmp")
	proj := filepath.Join(c.home, "proj")
	writeFiles(t, proj, map[string]string{"README": "x"})
	writeFiles(t, tmp, map[string]string{".keep": ""})
	state := filepath.Join(c.agentDir, "mcp", "go")
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{
			{ID: "c1", Name: "mcp__filesystem__write_file", Args: json.RawMessage(`{"path":"` + filepath.Join(proj, "out.txt") + `","content":"x"}`)},
			{ID: "c2", Name: "mcp__go__writeFile", Args: json.RawMessage(`{"path":"` + filepath.Join(proj, "go.txt") + `","text":"x"}`)},
			{ID: "c3", Name: "mcp__go__writeFile", Args: json.RawMessage(`{"path":"` + filepath.Join(state, "ok.txt") + `","text":"x"}`)},
			{ID: "c4", Name: "mcp__go__dial", Args: json.RawMessage(`{"addr":"127.0.0.1:9"}`)},
			{ID: "c5", Name: "mcp__filesystem__read_text_file", Args: json.RawMessage(`{"path":"` + filepath.Join(proj, "README") + `"}`)},
		}},
		{Text: "done"},
	})
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{
		"filesystem": map[string]any{"command": "node", "args": []string{filesystem, proj}},
		"go":         map[string]any{"command": mcpServerBin(t)},
	})})
	check, _, code := c.runPi([]string{"TMPDIR=" + tmp}, "sandbox", "check", "--json", "--cwd", proj)
	if code != 0 || !strings.Contains(check, `"confined": true`) {
		t.Skipf("the sandbox does not confine commands here: %s", check)
	}
	out, errs, code := c.runPi([]string{"TMPDIR=" + tmp}, "-p", "--cwd", proj, "--no-extensions", "go")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	msgs := sessionMessages(t, c.agentDir)
	result := func(id string, isError bool, has ...string) {
		t.Helper()
		m := resultOf(t, msgs, id)
		text := textOf(m)
		if (m.IsError != nil && *m.IsError) != isError {
			t.Errorf("%s: isError %v, want %v: %s", id, !isError, isError, text)
		}
		// Any of has: the kernel says no as EACCES from Landlock, or as
		// EROFS where the sandbox mounts the rest read-only.
		for _, h := range has {
			if strings.Contains(strings.ToLower(text), strings.ToLower(h)) {
				return
			}
		}
		t.Errorf("%s: %q lacks all of %q", id, text, has)
	}
	result("c1", true, "EACCES", "EROFS")
	result("c2", true, "permission denied", "read-only file system")
	result("c3", false, "wrote")
	result("c4", true, "operation not permitted")
	result("c5", false, "x")
	for _, f := range []string{"out.txt", "go.txt"} {
		if _, err := os.Stat(filepath.Join(proj, f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	if len(s.Requests()) != 2 {
		t.Errorf("the session did not go on")
	}
}

// pi mcp add and remove write the file the established harness writes, in
// its format (this file is what its pi mcp add wrote for these commands);
// list connects and shows state, tools and errors, exiting 1 when a
// server is not connected; get and check show one server.
func TestMCPCommands(t *testing.T) {
	c := newCLI(t)
	file := filepath.Join(c.agentDir, "mcp.json")
	c.must("mcp", "add", "fs", "--env", "A=b", "--cwd", "/tmp", "--", "node", "/x/y.js", "a", "b")
	out := c.must("mcp", "add", "web", "--url", "http://127.0.0.1:9/mcp", "--header", "X-A=1", "--bearer-token-env-var", "TOK", "--exposure", "direct", "--description", "Web things")
	if out != "Added global MCP server \"web\" in "+file+".\nCheck it with: pi mcp list\n" {
		t.Errorf("add said %q", out)
	}
	peer := `{
  "mcpServers": {
    "fs": {
      "command": "node",
      "args": [
        "/x/y.js",
        "a",
        "b"
      ],
      "env": {
        "A": "b"
      },
      "cwd": "/tmp"
    },
    "web": {
      "url": "http://127.0.0.1:9/mcp",
      "headers": {
        "X-A": "1",
        "Authorization": "Bearer ${TOK}"
      },
      "exposure": "direct",
      "description": "Web things"
    }
  }
}
`
	if got, _ := os.ReadFile(file); string(got) != peer {
		t.Errorf("mcp.json:\n%s\nwant the established harness's:\n%s", got, peer)
	}
	c.must("mcp", "remove", "web")
	c.must("mcp", "remove", "fs")
	if _, errs, code := c.run("mcp", "remove", "fs"); code != 1 || !strings.Contains(errs, `no global MCP server named "fs"`) {
		t.Errorf("removing a missing server: %d %s", code, errs)
	}

	bin := mcpServerBin(t)
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{
		"go":   map[string]any{"command": bin, "toolExposure": map[string]string{"greet": "direct", "hang": "hidden"}},
		"off":  map[string]any{"command": "x", "enabled": false},
		"mute": map[string]any{"command": bin, "args": []string{"-hang"}, "timeout": 1},
		"bad":  map[string]any{"type": "sse", "url": "http://x/sse"},
	})})
	out, errs, code := c.run("mcp", "list")
	want := "go: connected, 6 tools (codemode, global)\n  " + bin + "\n  tools: dial, exit, greet [direct], hang [hidden], unlock, writeFile\n" +
		"mute: failed (codemode, global)\n  " + bin + " -hang\n  no answer within 1s (its timeout); the session goes on without it\n" +
		"off: disabled (codemode, global)\n  x\n"
	if code != 1 || out != want {
		t.Errorf("list: exit %d\n%s\nwant\n%s", code, out, want)
	}
	if !strings.Contains(errs, `server "bad": the legacy SSE transport is not supported`) {
		t.Errorf("list does not report the invalid entry: %s", errs)
	}
	var js struct {
		Servers []mcpListServer `json:"servers"`
		Errors  []string        `json:"errors"`
	}
	out, _, _ = c.run("mcp", "list", "--json")
	if err := json.Unmarshal([]byte(out), &js); err != nil || len(js.Servers) != 3 || js.Servers[0].State != "connected" || len(js.Errors) != 1 {
		t.Errorf("list --json: %v %s", err, out)
	}
	if out := c.must("mcp", "get", "go"); !strings.Contains(out, "hang      hidden") && !strings.Contains(out, "hang") {
		t.Errorf("get: %s", out)
	}
	out = c.must("mcp", "check", "go", "--json")
	var chk struct {
		Network       bool           `json:"network"`
		WritableRoots []sandbox.Root `json:"writableRoots"`
	}
	if err := json.Unmarshal([]byte(out), &chk); err != nil || chk.Network {
		t.Fatalf("check: %v %s", err, out)
	}
	found := false
	for _, r := range chk.WritableRoots {
		found = found || r.Reason == "the server's state directory" || strings.HasPrefix(filepath.Join(c.agentDir, "mcp", "go"), r.Path)
		if r.Path == c.home {
			t.Errorf("the server may write the home directory: %s", out)
		}
	}
	if !found {
		t.Errorf("check does not show the state directory: %s", out)
	}
}

// A session calls a tool of a streamable HTTP server: the MCP project's
// everything server (npm) serving HTTP on loopback; the header's ${NAME}
// is resolved from pi's environment.
func TestMCPStreamableHTTPToolInASession(t *testing.T) {
	everything := referenceServer(t, "everything")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	srv := exec.Command("node", everything, "streamableHttp")
	srv.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				break
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the everything server did not start serving HTTP")
	}

	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "mcp__web__get_sum", Args: json.RawMessage(`{"a":2,"b":40}`)}}},
		{Text: "done"},
	})
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{
		"web": map[string]any{"url": fmt.Sprintf("http://127.0.0.1:%d/mcp", port), "headers": map[string]string{"X-Team": "${PI_TEST_TEAM}"}},
	})})
	out, errs, code := c.runPi([]string{"PI_TEST_TEAM=core"}, "-p", "--no-extensions", "add")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	reqs := s.Requests()
	if !strings.Contains(string(reqs[0]), `"name":"mcp__web__get_sum"`) {
		t.Errorf("the HTTP server's tool was not declared")
	}
	if !strings.Contains(string(reqs[1]), "42") {
		t.Errorf("the result did not reach the model: %s", reqs[1][strings.Index(string(reqs[1]), `"role":"tool"`):][:300])
	}

	// Without the variable the connection fails with a diagnostic, and the
	// session goes on without the server.
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Text: "alone"}})
	out, errs, code = c.runPi(nil, "-p", "--no-extensions", "--no-session", "add")
	if code != 0 || out != "alone\n" || !strings.Contains(errs, "PI_TEST_TEAM is not set") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
}

// A server's notifications/tools/list_changed is honoured: the tool its
// unlock tool adds is declared from the next prompt on, and called.
func TestMCPToolListChanged(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "mcp__go__unlock", Args: json.RawMessage(`{}`)}}},
		{Text: "unlocked"},
		{Calls: []scripted.Call{{ID: "c2", Name: "mcp__go__secret", Args: json.RawMessage(`{}`)}}},
		{Text: "done"},
	})
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{"go": map[string]any{"command": mcpServerBin(t)}})})
	out, errs, code := c.runPi(nil, "-p", "--no-extensions", "unlock it", "now use it")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	reqs := s.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	if strings.Contains(string(reqs[0]), "mcp__go__secret") || !strings.Contains(string(reqs[2]), `"name":"mcp__go__secret"`) {
		t.Errorf("the new tool is not declared from the next prompt on")
	}
	if !strings.Contains(string(reqs[3]), "the secret is 42") {
		t.Errorf("the new tool's result did not reach the model")
	}
}

// /mcp in the interactive session shows each server's state, tools and
// error, and reconnects one.
func TestMCPSlashCommand(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "anthropic-messages", []scripted.Reply{{Text: "hello"}})
	bin := mcpServerBin(t)
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{
		"go":   map[string]any{"command": bin},
		"mute": map[string]any{"command": bin, "args": []string{"-hang"}, "timeout": 1},
	})})
	tm := startTerminal(t, c, proj, "--fullscreen", "--cwd", proj)
	tm.waitFor("Ask pi")
	tm.typeLine("/mcp")
	tm.waitFor("go: connected, 6 tools (codemode, global)")
	tm.waitFor("mute: failed (codemode, global)")
	tm.waitFor("no answer within 1s")
	tm.typeLine("/mcp reconnect go")
	tm.waitFor("reconnected go")
	tm.typeLine("/quit")
	if !tm.exited(30 * time.Second) {
		t.Fatalf("/quit did not quit:\n%s", tm.screen())
	}
}

// RPC's mcp_list and mcp_reconnect (pi's own commands) report the servers
// in pi mcp list --json's shape, over the real binary's stdin and stdout.
func TestMCPOverRPC(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	scriptedModel(t, c, "anthropic-messages", []scripted.Reply{{Text: "hello"}})
	bin := mcpServerBin(t)
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{
		"go":   map[string]any{"command": bin},
		"mute": map[string]any{"command": bin, "args": []string{"-hang"}, "timeout": 1},
	})})
	rc := startRPCBinary(t, c, proj)
	rc.send(`{"id":"1","type":"mcp_list"}`)
	r := rc.response("1")
	b, _ := json.Marshal(r["data"])
	var got struct{ Servers []mcpListServer }
	if err := json.Unmarshal(b, &got); err != nil || len(got.Servers) != 2 {
		t.Fatalf("mcp_list: %v %s", err, b)
	}
	if s := got.Servers[0]; s.Name != "go" || s.State != "connected" || len(s.Tools) != 6 {
		t.Errorf("go: %+v", s)
	}
	if s := got.Servers[1]; s.Name != "mute" || s.State != "failed" || !strings.Contains(s.Error, "no answer") {
		t.Errorf("mute: %+v", s)
	}
	rc.send(`{"id":"2","type":"mcp_reconnect","name":"go"}`)
	if r := rc.response("2"); r["success"] != true {
		t.Errorf("mcp_reconnect: %v", r)
	}
	rc.send(`{"id":"3","type":"mcp_reconnect","name":"nope"}`)
	if r := rc.until("response 3", func(r map[string]any) bool { return r["type"] == "response" && r["id"] == "3" }); r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), `no MCP server "nope"`) {
		t.Errorf("mcp_reconnect of nothing: %v", r)
	}
}

// A server whose process ended is started again by the next call.
func TestMCPReconnectsOnTheNextCall(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "mcp__go__exit", Args: json.RawMessage(`{}`)}}},
		{Text: "it left"},
		{Calls: []scripted.Call{{ID: "c2", Name: "mcp__go__greet", Args: json.RawMessage(`{"name":"again"}`)}}},
		{Text: "done"},
	})
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{"go": map[string]any{"command": mcpServerBin(t)}})})
	out, errs, code := c.runPi(nil, "-p", "--no-extensions", "make it exit", "greet")
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	msgs := sessionMessages(t, c.agentDir)
	if m := resultOf(t, msgs, "c1"); m.IsError == nil || !*m.IsError {
		t.Errorf("the call the server died in: %s", textOf(m))
	}
	if reqs := s.Requests(); len(reqs) != 4 || !strings.Contains(string(reqs[3]), "Hi again") {
		t.Errorf("the call after the server exited did not reach a new server: %s", errs)
	}
}

// Weakness (issue 32): a project inside the temp dir was writable by MCP
// servers, the temp dir being theirs to write. With the project in
// TMPDIR a server gets a temp dir of its own instead: the project and the
// rest of the shared temp dir are refused, its own temp dir (TMPDIR) and
// state directory are written, and pi mcp check shows the private dir.
func TestMCPServersNeverWriteAProjectInTheTempDir(t *testing.T) {
	c := newCLI(t)
	tmp := filepath.Join(c.home, "tmp")
	proj := filepath.Join(tmp, "proj")
	writeFiles(t, proj, map[string]string{"README": "x"})
	state := filepath.Join(c.agentDir, "mcp", "go")
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{
			{ID: "c1", Name: "mcp__go__writeFile", Args: json.RawMessage(`{"path":"` + filepath.Join(proj, "go.txt") + `","text":"x"}`)},
			{ID: "c2", Name: "mcp__go__writeFile", Args: json.RawMessage(`{"path":"` + filepath.Join(tmp, "shared.txt") + `","text":"x"}`)},
			{ID: "c5", Name: "mcp__go__writeFile", Args: json.RawMessage(`{"path":"$TMPDIR/own.txt","text":"x"}`)},
			{ID: "c3", Name: "mcp__go__writeFile", Args: json.RawMessage(`{"path":"` + filepath.Join(state, "ok.txt") + `","text":"x"}`)},
			{ID: "c4", Name: "mcp__go__greet", Args: json.RawMessage(`{"name":"env"}`)},
		}},
		{Text: "done"},
	})
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{
		"go": map[string]any{"command": mcpServerBin(t), "args": []string{"-env"}},
	})})
	env := []string{"TMPDIR=" + tmp}
	check, _, code := c.runPi(env, "sandbox", "check", "--json", "--cwd", proj)
	if code != 0 || !strings.Contains(check, `"confined": true`) {
		t.Skipf("the sandbox does not confine commands here: %s", check)
	}
	out, _, _ := c.runPi(env, "mcp", "check", "go", "--json", "--cwd", proj)
	if strings.Contains(out, `"path": "`+tmp+`"`) || !strings.Contains(out, filepath.Join(tmp, "pi-mcp-go-*")) {
		t.Errorf("pi mcp check does not show a temp dir of the server's own:\n%s", out)
	}
	out, errs, code := c.runPi(env, "-p", "--cwd", proj, "--no-extensions", "go")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	msgs := sessionMessages(t, c.agentDir)
	for _, id := range []string{"c1", "c2"} {
		if m := resultOf(t, msgs, id); m.IsError == nil || !*m.IsError {
			t.Errorf("%s: the server wrote the project: %s", id, textOf(m))
		}
	}
	for _, id := range []string{"c3", "c5"} {
		if m := resultOf(t, msgs, id); m.IsError != nil && *m.IsError {
			t.Errorf("%s: the server could not write its state directory or its own temp dir: %s", id, textOf(m))
		}
	}
	if _, err := os.Stat(filepath.Join(proj, "go.txt")); err == nil {
		t.Errorf("go.txt was written into the project")
	}
	// The server's TMPDIR is a directory of its own in the temp dir,
	// removed when it stopped.
	text := textOf(resultOf(t, msgs, "c4"))
	i := strings.Index(text, "\nTMPDIR=")
	if i < 0 {
		t.Fatalf("the server has no TMPDIR:\n%s", text)
	}
	own, _, _ := strings.Cut(text[i+len("\nTMPDIR="):], "\n")
	if filepath.Dir(own) != tmp || !strings.HasPrefix(filepath.Base(own), "pi-mcp-go-") {
		t.Errorf("the server's TMPDIR is %s", own)
	}
	if _, err := os.Stat(own); err == nil {
		t.Errorf("the server's temp dir %s was left behind", own)
	}
	if len(s.Requests()) != 2 {
		t.Errorf("the session did not go on")
	}
}

// Weaknesses (issue 32): one line on a server's stdout that was not
// JSON-RPC ended its connection and silently dropped its tools for the
// session; a server that died was told to nobody. A noisy server (a
// banner, half a JSON object and a bare number at start, a debug line
// before each answer) keeps working, its stray lines in mcp.log; when it
// dies, stderr says so at once, and the next call starts it again.
func TestMCPStrayOutputAndADeadServer(t *testing.T) {
	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "mcp__go__greet", Args: json.RawMessage(`{"name":"one"}`)}}},
		{Calls: []scripted.Call{{ID: "c2", Name: "mcp__go__greet", Args: json.RawMessage(`{"name":"two"}`)}}},
		{Calls: []scripted.Call{{ID: "c3", Name: "mcp__go__exit", Args: json.RawMessage(`{}`)}}},
		{Text: "it left"},
		{Calls: []scripted.Call{{ID: "c4", Name: "mcp__go__greet", Args: json.RawMessage(`{"name":"again"}`)}}},
		{Text: "done"},
	})
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{"go": map[string]any{"command": mcpServerBin(t), "args": []string{"-noisy"}}})})
	out, errs, code := c.runPi(nil, "-p", "--no-extensions", "greet twice, then make it exit", "greet again")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	msgs := sessionMessages(t, c.agentDir)
	for id, want := range map[string]string{"c1": "Hi one", "c2": "Hi two", "c4": "Hi again"} {
		if got := textOf(resultOf(t, msgs, id)); got != want {
			t.Errorf("%s: %q, want %q", id, got, want)
		}
	}
	if !strings.Contains(errs, `mcp: server "go" disconnected`) {
		t.Errorf("the dead server was not reported on stderr:\n%s", errs)
	}
	if n := strings.Count(errs, `server "go"`); n != 1 {
		t.Errorf("the server was reported %d times:\n%s", n, errs)
	}
	log, _ := os.ReadFile(filepath.Join(c.agentDir, "mcp.log"))
	for _, want := range []string{`skipped a line that is not JSON-RPC: "greeter 1.0 starting"`, `"{\"unfinished\":"`, `: "42"`, `"debug: greeting two"`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("mcp.log lacks %s:\n%s", want, log)
		}
	}
	if len(s.Requests()) != 6 {
		t.Errorf("%d requests", len(s.Requests()))
	}
}
