package nsslookup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout bounds one run of getent: NSS modules that ask the
// network (mDNS, LDAP) answer within a second or two when they answer at
// all, and a dial waiting on a dead one must end with an error saying so.
const DefaultTimeout = 5 * time.Second

// maxOutput caps what getent may print: a name has a few addresses, each
// printed three times (one line per socket type).
const maxOutput = 64 << 10

// DialFunc is the shape of net.Dialer.DialContext and of
// http.Transport.DialContext.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Resolver resolves names with Go's resolver and, where it cannot, with
// the system's NSS through getent. The zero value is ready to use; it is
// safe for concurrent use.
type Resolver struct {
	// Getent is the getent program to run; "" looks getent up on PATH
	// when it is first needed.
	Getent string
	// NSSwitch is the name service switch configuration; "" is
	// /etc/nsswitch.conf.
	NSSwitch string
	// Timeout bounds one getent run; 0 is DefaultTimeout.
	Timeout time.Duration

	// lookup is Go's resolver; nil is net.DefaultResolver (tests replace it).
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)

	once   sync.Once
	others bool // the hosts line lists a source other than files and dns
}

// errNoGetent is the NSS lookup's error when the system has no getent:
// Go's resolver's answer stands.
var errNoGetent = errors.New("getent is not installed")

// WrapDial returns dial made to resolve names as the Resolver does. A
// name Go's resolver answers is dialled by dial as before (one lookup,
// Happy Eyeballs and all); a name that goes to NSS is dialled address by
// address, in the order getent printed them.
func (r *Resolver) WrapDial(dial DialFunc) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil || isIP(host) {
			return dial(ctx, network, addr)
		}
		if isLocal(host) {
			addrs, err := r.nss(ctx, host)
			switch {
			case err == nil:
				return dialEach(ctx, dial, network, host, port, addrs)
			case !errors.Is(err, errNoGetent):
				return nil, &net.OpError{Op: "dial", Net: network, Err: err}
			}
		}
		c, err := dial(ctx, network, addr)
		if err == nil || !r.fallBack(ctx, host, err) {
			return c, err
		}
		addrs, nerr := r.nss(ctx, host)
		if nerr != nil {
			return nil, joinLookup(err, nerr)
		}
		return dialEach(ctx, dial, network, host, port, addrs)
	}
}

// LookupNetIP returns host's addresses as WrapDial would dial them.
func (r *Resolver) LookupNetIP(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	if isLocal(host) {
		addrs, err := r.nss(ctx, host)
		if err == nil || !errors.Is(err, errNoGetent) {
			return addrs, err
		}
	}
	lookup := r.lookup
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := lookup(ctx, host)
	if err == nil || !r.fallBack(ctx, host, err) {
		return addrs, err
	}
	addrs, nerr := r.nss(ctx, host)
	if nerr != nil {
		return nil, joinLookup(err, nerr)
	}
	return addrs, nil
}

// fallBack reports whether a failure of Go's resolver on host goes on to
// NSS: it failed to resolve (not to connect), the caller still waits, and
// NSS has a source Go's resolver lacks.
func (r *Resolver) fallBack(ctx context.Context, host string, err error) bool {
	var dnsErr *net.DNSError
	if !errors.As(err, &dnsErr) || ctx.Err() != nil {
		return false
	}
	r.once.Do(func() {
		path := r.NSSwitch
		if path == "" {
			path = "/etc/nsswitch.conf"
		}
		// Without the file glibc uses "dns files": nothing Go lacks.
		if data, err := os.ReadFile(path); err == nil {
			for _, s := range HostsSources(data) {
				if s != "files" && s != "dns" {
					r.others = true
				}
			}
		}
	})
	return r.others
}

// joinLookup is the error of a name neither resolver answered: Go's, then
// NSS's when it has something to add.
func joinLookup(goErr, nssErr error) error {
	if errors.Is(nssErr, errNoGetent) {
		return goErr
	}
	return fmt.Errorf("%w; the system's name service: %w", goErr, nssErr)
}

// nss resolves host through `getent ahosts`.
func (r *Resolver) nss(ctx context.Context, host string) ([]netip.Addr, error) {
	if !validName(host) {
		return nil, fmt.Errorf("lookup %q: not a host name", host)
	}
	prog := r.Getent
	if prog == "" {
		p, err := exec.LookPath("getent")
		if err != nil {
			return nil, errNoGetent
		}
		prog = p
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, prog, "ahosts", host)
	stdout := &capped{max: maxOutput}
	stderr := &capped{max: 1 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A module that leaves a child holding the pipes must not hold the
	// dial past the timeout.
	cmd.WaitDelay = 100 * time.Millisecond
	err := cmd.Run()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case rctx.Err() != nil:
		return nil, fmt.Errorf("lookup %s: getent ahosts gave no answer within %v", host, timeout)
	case err != nil:
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 2 { // getent: key not found
			return nil, &net.DNSError{Err: "no such host (getent ahosts)", Name: host, IsNotFound: true}
		}
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			msg = ": " + msg
		}
		return nil, fmt.Errorf("lookup %s: getent ahosts: %w%s", host, err, msg)
	case stdout.over:
		return nil, fmt.Errorf("lookup %s: getent ahosts printed more than %d bytes", host, maxOutput)
	}
	addrs, err := ParseAhosts(stdout.Bytes())
	if err != nil {
		return nil, fmt.Errorf("lookup %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return nil, &net.DNSError{Err: "no such host (getent ahosts printed no address)", Name: host, IsNotFound: true}
	}
	return addrs, nil
}

// dialBudget is how long dialEach gives all the addresses together when
// the caller set no deadline: the dial timeout of http.DefaultTransport.
// minPartial is the least one address gets while others remain, as Go's
// own dialer shares a deadline among a name's addresses.
const (
	dialBudget = 30 * time.Second
	minPartial = 2 * time.Second
)

// dialEach dials the addresses in turn, those of network's family only,
// and returns the first connection. Each address gets its share of the
// time left (at least minPartial), so that one that never answers (an
// IPv6 address without a route, which mDNS often lists first) does not
// hold the dial until it times out as a whole.
func dialEach(ctx context.Context, dial DialFunc, network, host, port string, addrs []netip.Addr) (net.Conn, error) {
	return dialShared(ctx, dial, network, host, port, addrs, minPartial)
}

func dialShared(ctx context.Context, dial DialFunc, network, host, port string, addrs []netip.Addr, least time.Duration) (net.Conn, error) {
	var fit []netip.Addr
	for _, a := range addrs {
		if (network == "tcp4" || network == "udp4") && !a.Unmap().Is4() ||
			(network == "tcp6" || network == "udp6") && a.Unmap().Is4() {
			continue
		}
		fit = append(fit, a)
	}
	if len(fit) == 0 {
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no suitable address (getent ahosts)", Name: host, IsNotFound: true}}
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(dialBudget)
	}
	var errs []error
	for i, a := range fit {
		actx, cancel := ctx, context.CancelFunc(func() {})
		if left := len(fit) - i; left > 1 {
			share := max(time.Until(deadline)/time.Duration(left), least)
			actx, cancel = context.WithTimeout(ctx, share)
		}
		c, err := dial(actx, network, net.JoinHostPort(a.Unmap().String(), port))
		cancel()
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

func isIP(host string) bool {
	_, err := netip.ParseAddr(host)
	return err == nil
}

// isLocal reports whether host is in the .local domain (RFC 6762).
func isLocal(host string) bool {
	h := strings.TrimSuffix(host, ".")
	return len(h) > len(".local") && strings.EqualFold(h[len(h)-len(".local"):], ".local")
}

// validName reports whether s is a host name getent may be asked about:
// letters, digits, '-', '_' and dots, not starting with '-' (which getent
// would read as an option) or '.'.
func validName(s string) bool {
	if s == "" || len(s) > 254 || s[0] == '-' || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// capped is a buffer that keeps the first max bytes written to it and
// notes whether more came. (Not an embedded bytes.Buffer: exec would copy
// through its ReadFrom, past the cap.)
type capped struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capped) Bytes() []byte  { return c.buf.Bytes() }
func (c *capped) String() string { return c.buf.String() }

func (c *capped) Write(p []byte) (int, error) {
	n := len(p) // all taken: getent is never cut off mid-write
	if room := c.max - c.buf.Len(); len(p) > room {
		c.over = true
		p = p[:max(room, 0)]
	}
	c.buf.Write(p)
	return n, nil
}
