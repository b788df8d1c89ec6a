//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/internal/hostile"
	"github.com/piwasm/pi/internal/scripted"
)

// netAllowEnforced skips t where this kernel cannot hold commands to the
// allow-list proxy (Landlock ABI 4).
func netAllowEnforced(t *testing.T) {
	t.Helper()
	p, _ := sandbox.Build(sandbox.Inputs{Settings: sandbox.Settings{NetAllow: []string{"localhost"}}, Cwd: t.TempDir(), Tmp: os.TempDir()})
	if p == nil || !p.Enforced() {
		t.Skipf("the kernel cannot enforce the network allow-list here (Landlock ABI %d)", sandbox.Probe().LandlockABI)
	}
}

func TestSandboxCheckNetAllow(t *testing.T) {
	c := newCLI(t)
	proj := filepath.Join(c.home, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"sandbox":{"network":{"allow":["GitHub.com","*.npmjs.org"]}}}`})
	out, errOut, code := c.run("sandbox", "check", "--json", "--cwd", proj)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got sandboxCheckJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Network || got.NetworkPolicy != "allow-list" || strings.Join(got.NetworkAllow, " ") != "github.com *.npmjs.org" {
		t.Errorf("network %v %q %v", got.Network, got.NetworkPolicy, got.NetworkAllow)
	}
	if got.Enforced && (got.SelfTest != "ok" || !strings.HasPrefix(got.Proxy, "127.0.0.1:")) {
		t.Errorf("enforced, self-test %q, proxy %q", got.SelfTest, got.Proxy)
	}
	if !got.Enforced && !strings.Contains(got.Notice, "network allow-list") {
		t.Errorf("not enforced, notice %q", got.Notice)
	}
	out, _, _ = c.run("sandbox", "check", "--cwd", proj)
	if !regexp.MustCompile(`(?m)^network +allow-list: only these hosts`).MatchString(out) || !regexp.MustCompile(`(?m)^  \*\.npmjs\.org\s*$`).MatchString(out) {
		t.Errorf("plain check:\n%s", out)
	}
	// The flag still switches the network on or off.
	out, _, _ = c.run("sandbox", "check", "--cwd", proj, "--sandbox-network", "off")
	if !regexp.MustCompile(`(?m)^network +off`).MatchString(out) {
		t.Errorf("--sandbox-network off:\n%s", out)
	}
	// A bad entry is named with its file, and the network goes off.
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"sandbox":{"network":{"allow":["https://github.com/org"]}}}`})
	out, errOut, _ = c.run("sandbox", "check", "--cwd", proj)
	if !strings.Contains(errOut, filepath.Join(c.agentDir, "settings.json")) || !strings.Contains(errOut, "without a scheme") || !regexp.MustCompile(`(?m)^network +off`).MatchString(out) {
		t.Errorf("bad entry: stderr %q\n%s", errOut, out)
	}
}

// TestNetAllowThroughPi drives pi -p with a scripted model whose bash call
// fetches from a listed host, asks for an unlisted one over HTTPS and
// tries a direct TCP connection and a UDP datagram around the proxy.
func TestNetAllowThroughPi(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	netAllowEnforced(t)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "fetched through the proxy") }))
	defer backend.Close()
	_, port, _ := net.SplitHostPort(backend.Listener.Addr().String())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()

	c := newCLI(t)
	writeFiles(t, c.agentDir, map[string]string{"settings.json": `{"sandbox":{"network":{"allow":["localhost"]}}}`})
	script := strings.Join([]string{
		"curl -sS --max-time 30 http://localhost:" + port + "/; echo",
		"curl -sS --max-time 30 https://not-allowed.example/ 2>&1; echo",
		fmt.Sprintf("%q %s tcp %s udp %s", os.Args[0], hostile.NetProbe, ln.Addr(), udp.LocalAddr()),
	}, "\n")
	args, _ := json.Marshal(map[string]any{"command": script})
	scriptedModel(t, c, "openai-completions", []scripted.Reply{{Calls: []scripted.Call{{ID: "n", Name: "bash", Args: args}}}, {Text: "done"}})
	out, errs, code := c.run("-p", "--cwd", t.TempDir(), "fetch")
	if code != 0 || out != "done\n" {
		t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
	}
	text := resultOf(t, sessionMessages(t, c.agentDir), "n").Content.Text()
	for _, want := range []string{
		"fetched through the proxy",
		"host not-allowed.example is refused by the network allow-list",
		"tcp " + ln.Addr().String() + ": connect: permission denied",
		"udp " + udp.LocalAddr().String() + ": socket: operation not permitted",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("result lacks %q:\n%s", want, text)
		}
	}
}
