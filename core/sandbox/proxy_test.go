package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// testProxy starts a proxy for entries whose resolver maps the names in
// hosts (and nothing else).
func testProxy(t *testing.T, entries []string, hosts map[string]string) *netProxy {
	t.Helper()
	x := newNetProxy(entries)
	x.lookup = func(_ context.Context, host string) ([]netip.Addr, error) {
		a, ok := hosts[host]
		if !ok {
			return nil, fmt.Errorf("no such host %s", host)
		}
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	t.Cleanup(func() { x.close() })
	return x
}

// echoServer answers each connection with what it reads.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); io.Copy(c, c) }()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// connect sends CONNECT target through the proxy at addr and returns the
// status line and, on 200, the connection; on another status, the body.
func connect(t *testing.T, addr, target string) (string, net.Conn, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		c.Close()
		return resp.Status, nil, string(body)
	}
	return resp.Status, c, ""
}

func TestProxyConnect(t *testing.T) {
	port := echoServer(t)
	x := testProxy(t, []string{"allowed.test", "*.pub.test", "localhost"}, map[string]string{
		"allowed.test": "127.0.0.1", "rebind.pub.test": "127.0.0.1", "public.pub.test": "192.0.2.1", "localhost": "127.0.0.1",
	})
	addr, err := x.addr()
	if err != nil {
		t.Fatal(err)
	}
	status, c, _ := connect(t, addr, "allowed.test:"+port)
	if c == nil {
		t.Fatalf("CONNECT to a listed host: %s", status)
	}
	fmt.Fprint(c, "ping\n")
	line, err := bufio.NewReader(c).ReadString('\n')
	c.Close()
	if err != nil || line != "ping\n" {
		t.Errorf("through the tunnel: %q, %v", line, err)
	}

	for _, tt := range []struct{ target, host, why string }{
		{"other.test:" + port, "other.test", "not on the list"},
		{"Allowed.Test.evil.test:" + port, "allowed.test.evil.test", "not on the list"},
		{"127.0.0.1:" + port, "127.0.0.1", "IP address"},
		{"[::ffff:127.0.0.1]:" + port, "127.0.0.1", "IP address"},
		// A wildcard name that resolves to loopback: DNS rebinding to
		// pi's own services.
		{"rebind.pub.test:" + port, "rebind.pub.test", "resolves to 127.0.0.1, a local address"},
	} {
		m := x.mark()
		status, c, body := connect(t, addr, tt.target)
		if c != nil {
			c.Close()
			t.Errorf("CONNECT %s: %s, want 403", tt.target, status)
			continue
		}
		if !strings.HasPrefix(status, "403") || !strings.Contains(body, "host "+tt.host+" is refused by the network allow-list") ||
			!strings.Contains(body, "sandbox.network.allow") || !strings.Contains(body, tt.why) {
			t.Errorf("CONNECT %s: %s %q", tt.target, status, body)
		}
		if r := x.refusedSince(m); len(r) != 1 || r[0].Host != tt.host {
			t.Errorf("CONNECT %s: recorded %v", tt.target, r)
		}
	}
	// The request line decides, not a Host header that names a listed
	// host, and user info cannot smuggle one in.
	for _, raw := range []string{
		"CONNECT other.test:" + port + " HTTP/1.1\r\nHost: allowed.test:" + port + "\r\n\r\n",
		"CONNECT allowed.test@other.test:" + port + " HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
		"GET http://other.test:" + port + "/ HTTP/1.1\r\nHost: allowed.test:" + port + "\r\n\r\n",
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(c, raw)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("%q: %s, want 403", raw, resp.Status)
		}
	}
	// A host listed exactly may be local (the user said so).
	if status, c, _ := connect(t, addr, "localhost:"+port); c == nil {
		t.Errorf("CONNECT to localhost, listed exactly: %s", status)
	} else {
		c.Close()
	}
}

func TestProxyHTTP(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != "" {
			t.Error("Proxy-Authorization forwarded")
		}
		fmt.Fprintf(w, "hello from %s%s", r.Host, r.URL.Path)
	}))
	defer backend.Close()
	_, port, _ := net.SplitHostPort(backend.Listener.Addr().String())
	x := testProxy(t, []string{"allowed.test"}, map[string]string{"allowed.test": "127.0.0.1", "other.test": "127.0.0.1"})
	addr, err := x.addr()
	if err != nil {
		t.Fatal(err)
	}
	pu, _ := url.Parse("http://user:pw@" + addr)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	get := func(u string) (int, string) {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("http://allowed.test:" + port + "/x"); code != 200 || body != "hello from allowed.test:"+port+"/x" {
		t.Errorf("allowed: %d %q", code, body)
	}
	m := x.mark()
	if code, body := get("http://other.test:" + port + "/"); code != 403 || !strings.Contains(body, "host other.test is refused") {
		t.Errorf("not listed: %d %q", code, body)
	}
	if r := x.refusedSince(m); len(r) != 1 || r[0].Host != "other.test" {
		t.Errorf("recorded %v", r)
	}
	// A request not in absolute form is no proxy request.
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("origin-form request: %d", resp.StatusCode)
	}
}

func TestLocalAddr(t *testing.T) {
	for s, want := range map[string]bool{
		"127.0.0.1": true, "10.0.0.1": true, "172.16.0.1": true, "192.168.1.1": true, "169.254.169.254": true,
		"100.64.0.1": true, "0.0.0.0": true, "0.1.2.3": true, "::1": true, "fe80::1": true, "fd00::1": true,
		"::ffff:127.0.0.1": true, "224.0.0.1": true, "::": true,
		"140.82.112.3": false, "2606:50c0:8000::153": false, "100.128.0.1": false,
	} {
		if got := localAddr(netip.MustParseAddr(s)); got != want {
			t.Errorf("%s: %v, want %v", s, got, want)
		}
	}
}

func TestProxyRecordBounded(t *testing.T) {
	x := newNetProxy([]string{"a.test"})
	m := x.mark()
	for i := 0; i < maxRefusals+10; i++ {
		x.record(fmt.Sprintf("h%d.test", i%3), reasonNotListed)
	}
	if len(x.refused) != maxRefusals {
		t.Errorf("kept %d refusals", len(x.refused))
	}
	if r := x.refusedSince(m); len(r) != 3 {
		t.Errorf("refusedSince: %v, want the 3 hosts once each", r)
	}
	if r := x.refusedSince(x.mark()); r != nil {
		t.Errorf("nothing since the last mark: %v", r)
	}
}

// A name only the system's NSS knows (an mDNS name) resolves for the
// proxy through getent, and its answer is checked like any other.
func TestProxyResolvesThroughNSS(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("getent is a shell script here")
	}
	bin := t.TempDir()
	getent := "#!/bin/sh\n[ \"$1\" = ahosts ] || exit 1\nprintf '127.0.0.1       STREAM %s\\n127.0.0.1       DGRAM  \\n' \"$2\"\n"
	if err := os.WriteFile(filepath.Join(bin, "getent"), []byte(getent), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	port := echoServer(t)
	x := newNetProxy([]string{"box.local", "*.lan.local"})
	t.Cleanup(func() { x.close() })
	addr, err := x.addr()
	if err != nil {
		t.Fatal(err)
	}
	status, c, _ := connect(t, addr, "box.local:"+port)
	if c == nil {
		t.Fatalf("CONNECT box.local (listed, resolved by getent): %s", status)
	}
	c.Close()
	if status, c, body := connect(t, addr, "printer.lan.local:"+port); c != nil || !strings.Contains(body, "resolves to 127.0.0.1, a local address") {
		if c != nil {
			c.Close()
		}
		t.Errorf("CONNECT printer.lan.local (a wildcard, resolved to loopback by getent): %s %q", status, body)
	}
}
