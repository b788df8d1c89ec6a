package host

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	extism "github.com/extism/go-sdk"
	"github.com/piwasm/pi/abi"
)

// Extism's HTTP host function checks only the host name of the first URL
// against the allow-list and then sends the request with
// http.DefaultClient, which follows redirects anywhere and connects to
// whatever port the URL names. It offers no way to supply another client.
// The one place that sees every request it sends, redirects included, is
// that client's transport; so the package installs, once, a transport on
// http.DefaultClient that checks each request carrying a pi guest's
// network grant (netGrantKey in its context) against the grant, with
// ports, and passes every other request through to http.DefaultTransport
// unchanged. A request made from a guest's context without pi's grant
// (Extism's own calls into the guest) is refused. See RATIONALE.md.
func init() {
	http.DefaultClient.Transport = guardTransport{}
}

// netGrantKey is the context key of a guest's granted host patterns.
type netGrantKey struct{}

// netGrant is the host patterns a guest was granted.
type netGrant []string

type guardTransport struct{}

func (guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	g, guest := ctx.Value(netGrantKey{}).(netGrant)
	if !guest && ctx.Value(extism.PluginCtxKey("plugin")) != nil {
		guest = true // a guest's request outside pi's calls: nothing granted
	}
	if guest {
		if err := g.check(req); err != nil {
			if req.Body != nil {
				req.Body.Close()
			}
			return nil, err
		}
	}
	return http.DefaultTransport.RoundTrip(req)
}

// check allows a request whose scheme is http or https and whose host and
// port one of the patterns grants.
func (g netGrant) check(req *http.Request) error {
	u := req.URL
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return fmt.Errorf("HTTP request to %q is not allowed: only http and https", u.Redacted())
	}
	host := u.Hostname()
	port := 443
	if scheme == "http" {
		port = 80
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return fmt.Errorf("HTTP request to %q is not allowed: bad port", u.Redacted())
		}
		port = n
	}
	if req.Host != "" && req.Host != u.Host {
		// The Host header is what the server routes on: it must name the
		// same place as the URL.
		if h, _, err := net.SplitHostPort(req.Host); err == nil {
			if !strings.EqualFold(h, host) {
				return fmt.Errorf("HTTP request to %q with Host %q is not allowed", u.Redacted(), req.Host)
			}
		} else if !strings.EqualFold(req.Host, host) {
			return fmt.Errorf("HTTP request to %q with Host %q is not allowed", u.Redacted(), req.Host)
		}
	}
	for _, p := range g {
		if abi.MatchHost(p, scheme, host, port) {
			return nil
		}
	}
	return fmt.Errorf("HTTP request to %s:%d is not allowed (not granted; redirects are checked too)", host, port)
}

// extismHosts is what Extism's own first check gets: the host part of each
// pattern (Extism matches host names only; the guard checks the rest).
func extismHosts(patterns []string) []string {
	var out []string
	for _, p := range patterns {
		if abi.ValidateHostPattern(p) == nil {
			out = append(out, abi.HostPatternHost(p))
		}
	}
	return out
}

// withNetGrant returns ctx carrying the guest's network grant.
func withNetGrant(ctx context.Context, patterns []string) context.Context {
	return context.WithValue(ctx, netGrantKey{}, netGrant(append([]string(nil), patterns...)))
}
