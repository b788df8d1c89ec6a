//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// fakeGetentPath writes a getent that logs its arguments and runs body,
// and returns a PATH that finds it first, and the log.
func fakeGetentPath(t *testing.T, body string) (path, log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(bin, "log")
	script := "#!/bin/sh\necho \"$@\" >> '" + log + "'\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(bin, "getent"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), log
}

// An MCP server over HTTP named by an mDNS name is reached the same way:
// its tool is declared and called.
func TestMCPServerAtNSSName(t *testing.T) {
	srv := exec.Command(mcpServerBin(t), "-http", "127.0.0.1:0", "-any-host")
	out, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	u.Host = "box.local:" + u.Port()

	c := newCLI(t)
	s := scriptedModel(t, c, "openai-completions", []scripted.Reply{
		{Calls: []scripted.Call{{ID: "c1", Name: "mcp__web__greet", Args: json.RawMessage(`{"name":"box"}`)}}},
		{Text: "done"},
	})
	writeFiles(t, c.agentDir, map[string]string{"mcp.json": mcpJSON(t, map[string]any{"web": map[string]any{"url": u.String()}})})
	path, log := fakeGetentPath(t, `printf '127.0.0.1       STREAM box.local\n'`)
	stdout, errs, code := c.runPi([]string{path}, "-p", "--no-extensions", "--no-session", "greet")
	if code != 0 || stdout != "done\n" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, errs)
	}
	if reqs := s.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1]), "Hi box") {
		t.Errorf("the tool's result did not reach the model (%d requests); stderr: %s", len(reqs), errs)
	}
	if got, _ := os.ReadFile(log); !strings.Contains(string(got), "ahosts box.local") {
		t.Errorf("getent ran with %q", got)
	}
}

// A model server named by an mDNS name (box.local), which only the
// system's NSS resolves, answers pi -p as a user would run it: pi asks
// getent (a fake one here) and dials what it printed. When getent prints
// something else, the error says so.
func TestModelAtNSSName(t *testing.T) {
	srv := httptest.NewServer(&scripted.Server{Fallback: "Hello from box."})
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	for _, tc := range []struct{ name, getent, want string }{
		{"resolved", `printf '127.0.0.1       STREAM box.local\n127.0.0.1       DGRAM  \n'`, "Hello from box."},
		{"garbage", `echo 'mdns: daemon not running'`, `getent ahosts: line 1 "mdns: daemon not running" is not an address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			path, log := fakeGetentPath(t, tc.getent)
			writeFiles(t, c.agentDir, map[string]string{
				"models.json":   `{"providers":{"mock":{"baseUrl":"http://box.local:` + u.Port() + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`,
				"settings.json": `{"retry":{"enabled":false}}`,
			})
			out, errOut, code := c.runPi([]string{path},
				"-p", "--model", "mock/mock-1", "--no-extensions", "--no-session", "hello")
			if got, _ := os.ReadFile(log); strings.TrimSpace(string(got)) != "ahosts box.local" {
				t.Errorf("getent ran with %q, want \"ahosts box.local\"", got)
			}
			if tc.name == "resolved" {
				if code != 0 || !strings.Contains(out, tc.want) {
					t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
				}
				return
			}
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q, want it to contain %q", code, errOut, tc.want)
			}
		})
	}
}
