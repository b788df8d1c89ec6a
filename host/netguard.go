package host

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/piwasm/pi/abi"
)

// http_request (host/kernel.go) sends every guest request through a client
// whose transport checks the request against the guest's network grant,
// host and port: the first request and every redirect alike, since each
// redirect is a new round trip through the transport. See RATIONALE.md.

// netGrant is the host patterns a guest was granted.
type netGrant []string

// guardTransport refuses requests the grant does not cover and passes the
// others to http.DefaultTransport.
type guardTransport struct{ grant netGrant }

func (t guardTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.grant.check(req); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return http.DefaultTransport.RoundTrip(req)
}

// client returns an HTTP client for a guest granted g.
func (g netGrant) client() *http.Client {
	return &http.Client{Transport: guardTransport{grant: g}}
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
