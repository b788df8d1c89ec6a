package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/piwasm/pi/internal/nsslookup"
)

// netProxy is the HTTP proxy confined commands reach the network through
// in allow-list mode. It listens on 127.0.0.1 (a random port) from the
// first command that needs it until [Policy.Close], and serves:
//   - CONNECT host:port (https, and anything else tunnelled), to any port
//     of an allowed host: the list names hosts the user trusts, and
//     registries and git hosts do use other ports than 443; a port
//     restriction would break them and buy little once the host is
//     trusted;
//   - plain HTTP requests in absolute form (GET http://host/path).
//
// It checks the host against the allow-list, resolves the name itself
// (commands cannot: their UDP and every other TCP port are closed) and
// connects to the addresses it checked, so a name cannot be re-pointed
// between the check and the connection. A name that resolves to a
// loopback, private, link-local or otherwise local address is refused
// unless an entry names that host exactly: a wildcard entry, or a public
// name an attacker re-points, must not reach pi's own loopback services or
// the local network (DNS rebinding). A refusal answers 403 with a body
// naming the host and the setting, and is recorded for the bash tool's
// result ([Policy.AnnotateBash]).
type netProxy struct {
	allow allowList
	// lookup and dial are the resolver and the dialer; tests replace them.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	dial   func(ctx context.Context, network, addr string) (net.Conn, error)

	// inNS counts the listeners in commands' network namespaces being
	// served (netns_linux.go).
	inNS atomic.Int32

	mu     sync.Mutex
	ln     net.Listener
	srv    *http.Server
	closed bool
	// handOver is the Unix socket helpers hand their namespace
	// listeners to ("" without one), in the private handOverDir.
	handOver, handOverDir string
	handOverLn            io.Closer
	portNum               int       // the listener's port, once started
	env                   []string  // proxyEnv of the listener, once started
	refused               []refusal // in order; capped at maxRefusals
	nRefuse               int       // refusals ever, for marks beyond the cap
}

// refusal is one host the proxy refused and why.
type refusal struct {
	Host   string
	Reason string
}

const maxRefusals = 256

const reasonNotListed = "not on the list"

func newNetProxy(entries []string) *netProxy {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	// Names resolve as the system resolves them (NSS through getent where
	// Go's resolver cannot); the list is checked against what they
	// resolve to all the same.
	return &netProxy{
		allow:  newAllowList(entries),
		lookup: new(nsslookup.Resolver).LookupNetIP,
		dial:   d.DialContext,
	}
}

// addr returns the proxy's address, starting it on the first call.
func (x *netProxy) addr() (string, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return "", errors.New("the network proxy is closed")
	}
	if x.ln != nil {
		return x.ln.Addr().String(), nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("start the network proxy: %w", err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// The request is already in absolute form; keep its target.
			pr.Out.URL = pr.In.URL
			pr.Out.Host = ""
		},
		Transport: &http.Transport{
			Proxy:               nil, // never pi's own environment's proxy
			DialContext:         x.dialChecked,
			MaxIdleConnsPerHost: 4,
			IdleConnTimeout:     90 * time.Second,
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			x.fail(w, r.URL.Hostname(), err)
		},
	}
	x.ln = ln
	x.srv = &http.Server{
		Handler:           http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { x.serve(w, r, rp) }),
		ReadHeaderTimeout: 30 * time.Second,
		// A client's broken request must not print on pi's terminal
		// (the UI owns it); refusals reach the command as 403s.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	go func() { _ = x.srv.Serve(ln) }()
	// Where commands get a network namespace, their helpers hand their
	// listeners over here; without it they run in pi's namespace, held
	// to the proxy's port by Landlock alone.
	if path, dir, err := x.startHandOver(); err == nil {
		x.handOver, x.handOverDir = path, dir
	}
	return ln.Addr().String(), nil
}

// handOverPath is where helpers hand over their namespace listeners, ""
// when pi has no such socket.
func (x *netProxy) handOverPath() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.handOver
}

// running is the proxy's address if it runs, "" otherwise.
func (x *netProxy) running() string {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.ln == nil || x.closed {
		return ""
	}
	return x.ln.Addr().String()
}

// port is the proxy's TCP port and the environment that points commands
// at it, starting it when needed; both are computed once.
func (x *netProxy) port() (int, []string, error) {
	a, err := x.addr()
	if err != nil {
		return 0, nil, err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.env == nil {
		_, ps, _ := net.SplitHostPort(a)
		if x.portNum, err = strconv.Atoi(ps); err != nil {
			return 0, nil, err
		}
		x.env = proxyEnv(a)
	}
	return x.portNum, x.env, nil
}

// close stops the proxy and the connections it serves.
func (x *netProxy) close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	if x.srv == nil {
		return nil
	}
	if x.handOverLn != nil {
		x.handOverLn.Close()
		os.RemoveAll(x.handOverDir)
	}
	return x.srv.Close()
}

func (x *netProxy) serve(w http.ResponseWriter, r *http.Request, rp *httputil.ReverseProxy) {
	if r.Method == http.MethodConnect {
		x.connect(w, r)
		return
	}
	if !r.URL.IsAbs() || r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "pi sandbox proxy: only CONNECT and absolute http:// requests are served\n", http.StatusBadRequest)
		return
	}
	// Refuse an unlisted host before the transport tries anything; the
	// transport's dial checks again (with the addresses) for what it
	// connects.
	if err := x.checkName(r.URL.Hostname()); err != nil {
		x.fail(w, r.URL.Hostname(), err)
		return
	}
	rp.ServeHTTP(w, r)
}

// connect serves CONNECT: it dials the checked target, answers 200 and
// copies bytes both ways until either side closes.
func (x *netProxy) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil || port == "" {
		http.Error(w, "pi sandbox proxy: CONNECT needs host:port\n", http.StatusBadRequest)
		return
	}
	up, err := x.dialChecked(r.Context(), "tcp", net.JoinHostPort(host, port))
	if err != nil {
		x.fail(w, host, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "pi sandbox proxy: cannot tunnel\n", http.StatusInternalServerError)
		return
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		conn.Close()
		up.Close()
		return
	}
	go splice(up, conn, brw.Reader)
}

// splice copies client (whose first bytes may sit in buffered) to up and
// up to client, closing both when both directions are done.
func splice(up, client net.Conn, buffered *bufio.Reader) {
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, buffered)
		closeWrite(up)
		close(done)
	}()
	_, _ = io.Copy(client, up)
	closeWrite(client)
	<-done
	up.Close()
	client.Close()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
}

// errRefused is wrapped by the proxy's refusals (as against failures to
// connect to an allowed host).
var errRefused = errors.New("refused by the network allow-list")

// refusedError is a refusal with its reason.
type refusedError struct{ host, reason string }

func (e *refusedError) Error() string {
	return fmt.Sprintf("host %s is refused by the network allow-list: %s", e.host, e.reason)
}
func (e *refusedError) Unwrap() error { return errRefused }

// checkName is the allow-list check that needs no resolution.
func (x *netProxy) checkName(host string) error {
	_, err := x.classify(host)
	return err
}

// classify normalizes host and checks it against the list; exact reports
// whether an entry names it exactly.
func (x *netProxy) classify(host string) (exact bool, err error) {
	h, isIP, herr := normalizeHost(host)
	if herr != nil {
		return false, &refusedError{host, "not a host name (" + herr.Error() + ")"}
	}
	listed, exact := x.allow.match(h)
	switch {
	case listed:
		return exact, nil
	case isIP:
		return false, &refusedError{h, "an IP address is reached only when the list names it"}
	}
	return false, &refusedError{h, reasonNotListed}
}

// dialChecked connects to addr ("host:port") if the list allows host,
// through the addresses it resolved and checked itself.
func (x *netProxy) dialChecked(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	exact, err := x.classify(host)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	if ip, ok := parseIPLiteral(host); ok {
		addrs = []netip.Addr{ip}
	} else {
		name, _, _ := normalizeHost(host)
		if addrs, err = x.lookup(ctx, name); err != nil {
			return nil, fmt.Errorf("resolve %s: %w", name, err)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("resolve %s: no addresses", name)
		}
		if !exact {
			for _, a := range addrs {
				if localAddr(a) {
					return nil, &refusedError{name, fmt.Sprintf("it resolves to %s, a local address, which only an entry naming the host exactly allows", a.Unmap())}
				}
			}
		}
	}
	var last error
	for _, a := range addrs {
		c, err := x.dial(ctx, "tcp", net.JoinHostPort(a.Unmap().String(), port))
		if err == nil {
			return c, nil
		}
		last = err
	}
	return nil, last
}

// cgnat is the shared address space (RFC 6598), local to a carrier or a
// VPN (Tailscale uses it).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// localAddr reports whether a is an address a public name should never
// resolve to: loopback, private, link-local, unspecified, multicast,
// "this network" (0.0.0.0/8) or shared (100.64.0.0/10).
func localAddr(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is4() && a.As4()[0] == 0 {
		return true
	}
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() || cgnat.Contains(a)
}

// fail answers a request the proxy could not serve: 403 naming the host
// and the setting for a refusal (recorded), 502 for a failed connection.
func (x *netProxy) fail(w http.ResponseWriter, host string, err error) {
	var re *refusedError
	if errors.As(err, &re) {
		x.record(re.host, re.reason)
		http.Error(w, "pi sandbox: "+re.Error()+" (settings sandbox.network.allow); the command may reach only the hosts listed there\n", http.StatusForbidden)
		return
	}
	http.Error(w, fmt.Sprintf("pi sandbox proxy: cannot reach %s: %v\n", host, err), http.StatusBadGateway)
}

func (x *netProxy) record(host, reason string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.nRefuse++
	if len(x.refused) == maxRefusals {
		x.refused = append(x.refused[:0], x.refused[1:]...)
	}
	x.refused = append(x.refused, refusal{host, reason})
}

// mark is the count of refusals so far, for refusedSince.
func (x *netProxy) mark() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.nRefuse
}

// refusedSince lists the refusals after mark m, one per host.
func (x *netProxy) refusedSince(m int) []refusal {
	x.mu.Lock()
	defer x.mu.Unlock()
	n := x.nRefuse - m
	if n <= 0 {
		return nil
	}
	n = min(n, len(x.refused))
	var out []refusal
	seen := map[string]bool{}
	for _, r := range x.refused[len(x.refused)-n:] {
		if !seen[r.Host] {
			seen[r.Host] = true
			out = append(out, r)
		}
	}
	return out
}

// proxyEnv is the environment that points commands at the proxy at addr
// (host:port); NO_PROXY is cleared so no host bypasses it.
func proxyEnv(addr string) []string {
	u := "http://" + addr
	var env []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		env = append(env, k+"="+u, strings.ToLower(k)+"="+u)
	}
	return append(env, "NO_PROXY=", "no_proxy=")
}
