package abi

import (
	"fmt"
	"strconv"
	"strings"
)

// A network grant is a host pattern: a host name ("api.example.com"), or
// "*." followed by a domain of at least two labels ("*.example.com", any
// subdomain of example.com, not example.com itself), optionally followed by
// ":PORT". Without a port only the scheme's default port (443 for https, 80
// for http) is reachable. Nothing else is a pattern: a grant must name
// where requests may go, so "*", "*.com", alternatives ("{a,b}") and
// character classes are refused.

// ValidateHostPattern reports why p is not a host pattern, or nil.
func ValidateHostPattern(p string) error {
	host, port, hasPort := strings.Cut(p, ":")
	if hasPort {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || port != strconv.Itoa(n) {
			return fmt.Errorf("%q: the port must be a number from 1 to 65535", p)
		}
	}
	rest, wild := strings.CutPrefix(host, "*.")
	labels := strings.Split(rest, ".")
	if wild && len(labels) < 2 {
		return fmt.Errorf("%q: a wildcard must be followed by a domain of at least two labels (such as *.example.com)", p)
	}
	for _, l := range labels {
		if !validLabel(l) {
			return fmt.Errorf("%q must be a host name, or *. and a domain, optionally with :PORT", p)
		}
	}
	return nil
}

// validLabel accepts one DNS label: letters, digits and inner hyphens.
func validLabel(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// HostPatternHost returns the host part of a host pattern (without the
// port).
func HostPatternHost(p string) string {
	h, _, _ := strings.Cut(p, ":")
	return h
}

// MatchHost reports whether a request to host (a name without a trailing
// dot) on port with the given URL scheme is allowed by pattern p. Host
// names compare case-insensitively; an invalid pattern matches nothing.
func MatchHost(p, scheme, host string, port int) bool {
	if ValidateHostPattern(p) != nil {
		return false
	}
	ph, pport, hasPort := strings.Cut(p, ":")
	if hasPort {
		if strconv.Itoa(port) != pport {
			return false
		}
	} else {
		switch {
		case scheme == "https" && port == 443, scheme == "http" && port == 80:
		default:
			return false
		}
	}
	host, ph = strings.ToLower(host), strings.ToLower(ph)
	if domain, wild := strings.CutPrefix(ph, "*."); wild {
		return strings.HasSuffix(host, "."+domain) && len(host) > len(domain)+1
	}
	return host == ph
}
