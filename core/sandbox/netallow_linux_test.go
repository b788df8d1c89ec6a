package sandbox_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/internal/hostile"
)

// netAllowPolicy is an allow-list policy for w listing hosts, or nil
// (after skipping t) where the kernel cannot enforce one.
func netAllowPolicy(t *testing.T, w world, hosts ...string) *sandbox.Policy {
	t.Helper()
	p, err := sandbox.Build(sandbox.Inputs{Settings: sandbox.Settings{NetAllow: hosts}, Cwd: w.tree, Home: w.home, Tmp: w.tmp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if !p.Enforced() {
		if !strings.Contains(p.Notice(), "network allow-list") {
			t.Errorf("an allow-list the kernel cannot enforce, without a notice: %q", p.Notice())
		}
		t.Skipf("the kernel cannot enforce the network allow-list: %s", p.Notice())
	}
	return p
}

// counter is a TCP listener that counts the connections it accepts.
func counter(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var n atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().String(), &n
}

// TestNetAllowHolds runs, through the real bash tool and helper, a
// command that fetches from a listed host through the proxy, asks for
// unlisted hosts over HTTP and HTTPS, and then tries the ways around the
// proxy: a direct TCP connection to another loopback port (Landlock
// refuses it), a UDP datagram (the seccomp filter refuses the socket) and
// a TCP Fast Open sendto, which connects without connect(2) (the filter
// refuses the flag). Nothing may arrive at the listeners, and the result
// must name the refused hosts.
func TestNetAllowHolds(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	p := netAllowPolicy(t, w, "localhost")
	backend := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(rw, "served %s", r.Host)
	}))
	defer backend.Close()
	_, bport, _ := net.SplitHostPort(backend.Listener.Addr().String())
	tcpAddr, tcpConns := counter(t)
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	exe, _ := os.Executable()
	script := strings.Join([]string{
		"curl -sS --max-time 30 http://localhost:" + bport + "/ok; echo",
		"curl -sS --max-time 30 -o /dev/null -w 'plain %{http_code}\\n' http://blocked-http.test/",
		"curl -sS --max-time 30 https://blocked-tls.test/ 2>&1; echo",
		fmt.Sprintf("%q %s tcp %s udp %s fastopen %s", exe, hostile.NetProbe, tcpAddr, udp.LocalAddr(), tcpAddr),
	}, "\n")
	out, _ := run(t, p, w.tree, script)
	for _, want := range []string{
		"served localhost:" + bport,
		"plain 403",
		"tcp " + tcpAddr + ": connect: permission denied",
		"udp " + udp.LocalAddr().String() + ": socket: operation not permitted",
		"fastopen " + tcpAddr + ": operation not permitted",
		"host blocked-http.test is refused by the network allow-list",
		"host blocked-tls.test is refused by the network allow-list",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("result lacks %q:\n%s", want, out)
		}
	}
	// A failed call: the note comes with the error, once.
	out, code := run(t, p, w.tree, "curl -sS --max-time 30 https://blocked-again.test/")
	if code != 1 || strings.Count(out, "host blocked-again.test is refused by the network allow-list") != 1 || strings.Contains(out, "blocked-tls.test") {
		t.Errorf("failed call: exit %d\n%s", code, out)
	}
	if n := tcpConns.Load(); n != 0 {
		t.Errorf("%d direct TCP connection(s) got past the proxy", n)
	}
	udp.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if n, _, err := udp.ReadFrom(make([]byte, 64)); err == nil {
		t.Errorf("a %d-byte datagram got out", n)
	}
}

// TestNetAllowProxyOnlyWhenNeeded: commands in other network modes do not
// start the proxy, and a command in allow-list mode gets it in its
// environment with NO_PROXY cleared.
func TestNetAllowProxyOnlyWhenNeeded(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	for _, network := range []string{"on", "off"} {
		p := w.policy(t, sandbox.Flags{Network: network})
		run(t, p, w.tree, "true")
		if a := p.ProxyAddr(); a != "" {
			t.Errorf("network %s: a proxy runs at %s", network, a)
		}
	}
	p := netAllowPolicy(t, w, "localhost")
	if p.ProxyAddr() != "" {
		t.Error("the proxy started before any command")
	}
	out, code := run(t, p, w.tree, "env | grep -i _proxy= | sort")
	addr := p.ProxyAddr()
	if code != 0 || addr == "" {
		t.Fatalf("exit %d, proxy %q: %s", code, addr, out)
	}
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		if !strings.Contains(out, k+"=http://"+addr+"\n") {
			t.Errorf("no %s for %s in:\n%s", k, addr, out)
		}
	}
	if !strings.Contains(out, "NO_PROXY=\n") || !strings.Contains(out, "no_proxy=\n") {
		t.Errorf("no_proxy not cleared:\n%s", out)
	}
}

// TestNetAllowProxyPortElsewhere: Landlock allows the proxy's port, not
// the proxy's address, so a server listening on that port number at
// another address (here 127.0.0.2, as an attacker's would anywhere) must
// still be out of reach: commands run in a network namespace of their own
// where only the proxy is, through a forwarder.
func TestNetAllowProxyPortElsewhere(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	p := netAllowPolicy(t, w, "localhost")
	run(t, p, w.tree, "true") // starts the proxy
	_, port, _ := net.SplitHostPort(p.ProxyAddr())
	ln, err := net.Listen("tcp", "127.0.0.2:"+port)
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	defer ln.Close()
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			c.Close()
		}
	}()
	exe, _ := os.Executable()
	out, _ := run(t, p, w.tree, fmt.Sprintf("%q %s tcp 127.0.0.2:%s", exe, hostile.NetProbe, port))
	if strings.Contains(out, ": ok") || conns.Load() != 0 {
		t.Errorf("a command reached another server on the proxy's port (%d connection(s)):\n%s", conns.Load(), out)
	}
}
