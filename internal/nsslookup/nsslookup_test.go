//go:build unix

package nsslookup

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeGetent writes a getent that logs its arguments to the returned log
// file and then runs body (sh).
func fakeGetent(t *testing.T, body string) (prog, log string) {
	t.Helper()
	dir := t.TempDir()
	prog, log = filepath.Join(dir, "getent"), filepath.Join(dir, "log")
	script := "#!/bin/sh\necho \"$@\" >> '" + log + "'\n" + body + "\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return prog, log
}

func nsswitch(t *testing.T, hosts string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "nsswitch.conf")
	if err := os.WriteFile(p, []byte("passwd: files\nhosts: "+hosts+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func ran(t *testing.T, log string) string {
	t.Helper()
	b, err := os.ReadFile(log)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// listen returns a loopback listener's port; it accepts in the background.
func listen(t *testing.T) string {
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
			c.Write([]byte("hi"))
			c.Close()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

func readHi(t *testing.T, c net.Conn) {
	t.Helper()
	defer c.Close()
	b := make([]byte, 2)
	if _, err := c.Read(b); err != nil || string(b) != "hi" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// notFound is Go's resolver failing on every name, as it does on one only
// NSS knows.
func notFound(ctx context.Context, network, addr string) (net.Conn, error) {
	host, _, _ := net.SplitHostPort(addr)
	if !isIP(host) {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func TestLocalNameThroughGetent(t *testing.T) {
	port := listen(t)
	prog, log := fakeGetent(t, `printf '127.0.0.1       STREAM box.local\n127.0.0.1       DGRAM  \n'`)
	r := &Resolver{Getent: prog, NSSwitch: nsswitch(t, "files dns")}
	dialled := []string{}
	dial := r.WrapDial(func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialled = append(dialled, addr)
		return notFound(ctx, network, addr)
	})
	c, err := dial(t.Context(), "tcp", "box.local:"+port)
	if err != nil {
		t.Fatal(err)
	}
	readHi(t, c)
	if got := ran(t, log); got != "ahosts box.local" {
		t.Errorf("getent ran with %q, want \"ahosts box.local\"", got)
	}
	// .local goes to NSS first: Go's resolver is never asked.
	if want := "127.0.0.1:" + port; len(dialled) != 1 || dialled[0] != want {
		t.Errorf("dialled %q, want [%s]", dialled, want)
	}
	addrs, err := r.LookupNetIP(t.Context(), "Box.Local.")
	if err != nil || len(addrs) != 1 || addrs[0] != netip.MustParseAddr("127.0.0.1") {
		t.Errorf("LookupNetIP = %v, %v", addrs, err)
	}
}

func TestGoAnswersNoGetent(t *testing.T) {
	port := listen(t)
	prog, log := fakeGetent(t, `echo 10.9.9.9 STREAM`)
	// NSS has sources Go lacks, yet a name Go resolves never reaches it.
	r := &Resolver{Getent: prog, NSSwitch: nsswitch(t, "files myhostname mdns4_minimal [NOTFOUND=return] dns")}
	var d net.Dialer
	c, err := r.WrapDial(d.DialContext)(t.Context(), "tcp", "localhost:"+port)
	if err != nil {
		t.Fatal(err)
	}
	readHi(t, c)
	if _, err := r.LookupNetIP(t.Context(), "localhost"); err != nil {
		t.Fatal(err)
	}
	if got := ran(t, log); got != "" {
		t.Errorf("getent ran (%q) for a name Go's resolver answers", got)
	}
}

func TestFallbackFollowsNSSwitch(t *testing.T) {
	port := listen(t)
	for _, tc := range []struct {
		hosts   string
		useNSS  bool
		lookups string
	}{
		{"files myhostname dns", true, "ahosts build-box"},
		{"files resolve [!UNAVAIL=return] dns", true, "ahosts build-box"},
		{"files dns", false, ""},
		{"dns [!UNAVAIL=return] files", false, ""},
	} {
		t.Run(tc.hosts, func(t *testing.T) {
			prog, log := fakeGetent(t, `printf '127.0.0.1 STREAM build-box\n'`)
			r := &Resolver{Getent: prog, NSSwitch: nsswitch(t, tc.hosts)}
			c, err := r.WrapDial(notFound)(t.Context(), "tcp", "build-box:"+port)
			if tc.useNSS {
				if err != nil {
					t.Fatal(err)
				}
				readHi(t, c)
			} else if err == nil || !strings.Contains(err.Error(), "no such host") {
				t.Fatalf("err %v, want Go's no such host", err)
			}
			if got := ran(t, log); got != tc.lookups {
				t.Errorf("getent ran %q, want %q", got, tc.lookups)
			}
		})
	}
}

func TestGetentFailures(t *testing.T) {
	for _, tc := range []struct{ name, body, err string }{
		{"not found", "exit 2", "lookup box.local: no such host (getent ahosts)"},
		{"fails", "echo 'getent: cannot open module' >&2; exit 1", "getent ahosts: exit status 1: getent: cannot open module"},
		{"garbage", "echo 'Welcome to the name service'", `getent ahosts: line 1 "Welcome to the name service" is not an address`},
		{"no address", "true", "no such host (getent ahosts printed no address)"},
		// sleep outlives the killed shell and holds its stdout.
		{"hangs", "sleep 10", "getent ahosts gave no answer within 200ms"},
		{"floods", "yes '127.0.0.1 STREAM' | head -c 70000", "printed more than 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog, _ := fakeGetent(t, tc.body)
			r := &Resolver{Getent: prog, NSSwitch: nsswitch(t, "files mdns4_minimal dns"), Timeout: 200 * time.Millisecond}
			start := time.Now()
			_, err := r.WrapDial(notFound)(t.Context(), "tcp", "box.local:80")
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err %v, want one containing %q", err, tc.err)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("the dial took %v", d)
			}
			if _, err := r.LookupNetIP(t.Context(), "box.local"); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("LookupNetIP: %v, want one containing %q", err, tc.err)
			}
		})
	}
}

func TestNoGetentKeepsGoAnswer(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	r := &Resolver{NSSwitch: nsswitch(t, "files mdns4_minimal dns")}
	_, err := r.WrapDial(notFound)(t.Context(), "tcp", "box.local:80")
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || dnsErr.Err != "no such host" {
		t.Fatalf("err %v, want Go's own", err)
	}
}

func TestNotAHostName(t *testing.T) {
	prog, log := fakeGetent(t, `echo 127.0.0.1 STREAM`)
	r := &Resolver{Getent: prog}
	for _, h := range []string{"-s.local", "a b.local", "x;y.local"} {
		if _, err := r.LookupNetIP(t.Context(), h); err == nil || !strings.Contains(err.Error(), "not a host name") {
			t.Errorf("%q: %v", h, err)
		}
	}
	if got := ran(t, log); got != "" {
		t.Errorf("getent ran with %q", got)
	}
}

// An address that never answers gets its share of the time, not all of
// it: the next one is dialled.
func TestDialSharesTheTime(t *testing.T) {
	port := listen(t)
	var tried []string
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		tried = append(tried, addr)
		if strings.HasPrefix(addr, "[2001:db8::1]") { // a black hole
			<-ctx.Done()
			return nil, ctx.Err()
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	// Succeeding at all shows the black hole did not get the whole time.
	ctx, cancel := context.WithTimeout(t.Context(), 400*time.Millisecond)
	defer cancel()
	c, err := dialShared(ctx, dial, "tcp", "box.local", port,
		[]netip.Addr{netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("127.0.0.1")}, 10*time.Millisecond)
	if err != nil {
		t.Fatalf("%v (tried %v)", err, tried)
	}
	readHi(t, c)
	// Only one address of the family asked for: none, a clear error.
	if _, err := dialShared(ctx, dial, "tcp6", "box.local", port, []netip.Addr{netip.MustParseAddr("127.0.0.1")}, time.Millisecond); err == nil || !strings.Contains(err.Error(), "no suitable address") {
		t.Errorf("tcp6 to a v4-only name: %v", err)
	}
}
