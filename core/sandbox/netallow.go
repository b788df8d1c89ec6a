package sandbox

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
)

// The network allow-list: "sandbox": {"network": {"allow": [...]}} lets
// confined commands reach only the listed hosts, through pi's proxy
// (proxy.go), with the kernel holding them to the proxy's port
// (confine/helper_linux.go).
//
// An entry is one of:
//   - a host name, "github.com": that name exactly (not its subdomains);
//   - a wildcard, "*.npmjs.org": every name below npmjs.org, at any depth,
//     but not npmjs.org itself (list both to allow both). This is how
//     Anthropic's sandbox runtime and most proxies read "*.": the star
//     stands for at least one label. The wildcard must leave at least two
//     labels ("*.com" would be a whole top-level domain);
//   - an IP address, "10.1.2.3" or "::1" (brackets allowed): requests
//     naming that address literally. Without such an entry a request for
//     an IP literal is refused, so the list cannot be sidestepped by
//     naming an address instead of a host.
//
// Names compare case-insensitively, a trailing dot ignored. Schemes,
// paths, ports, user info and a bare "*" are refused with a message: an
// entry allows a host on every port (see proxy.go for why).

// allowList matches requested hosts against the entries.
type allowList struct {
	// entries are the normalized entries, in the order given, for display.
	entries []string
	exact   map[string]bool // names and canonical IP addresses
	// suffixes are the wildcards without their star: ".npmjs.org".
	suffixes []string
}

// newAllowList builds the matcher from normalized entries.
func newAllowList(entries []string) allowList {
	a := allowList{entries: entries, exact: map[string]bool{}}
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e, "*"); ok {
			a.suffixes = append(a.suffixes, rest)
		} else {
			a.exact[e] = true
		}
	}
	return a
}

// match reports whether host (normalized by normalizeHost) is on the list,
// and whether an entry names it exactly (a wildcard match is not exact).
func (a allowList) match(host string) (listed, exact bool) {
	if a.exact[host] {
		return true, true
	}
	for _, s := range a.suffixes {
		if len(host) > len(s) && strings.HasSuffix(host, s) {
			return true, false
		}
	}
	return false, false
}

// parseAllowEntry checks one entry of sandbox.network.allow and returns
// it normalized (lower case, no trailing dot, IP addresses canonical).
func parseAllowEntry(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return "", errors.New("empty entry")
	case s == "*" || s == "*.":
		return "", errors.New("\"*\" would allow every host; set \"network\": true instead")
	case strings.Contains(s, "://"):
		return "", fmt.Errorf("%q: give the host name only, without a scheme", raw)
	case strings.ContainsAny(s, "/?#"):
		return "", fmt.Errorf("%q: give the host name only, without a path", raw)
	case strings.Contains(s, "@"):
		return "", fmt.Errorf("%q: give the host name only, without user info", raw)
	}
	if ip, ok := parseIPLiteral(s); ok {
		return ip.String(), nil
	}
	if strings.Contains(s, ":") {
		return "", fmt.Errorf("%q: give the host name only, without a port (an entry allows every port of its host)", raw)
	}
	s = strings.TrimSuffix(strings.ToLower(s), ".")
	name, wild := strings.CutPrefix(s, "*.")
	if err := checkHostName(name); err != nil {
		return "", fmt.Errorf("%q: %v", raw, err)
	}
	if wild {
		if !strings.Contains(name, ".") {
			return "", fmt.Errorf("%q: a wildcard must leave at least two labels (\"*.example.com\", not a whole top-level domain)", raw)
		}
		return "*." + name, nil
	}
	return name, nil
}

// parseIPLiteral reads an IP address, IPv6 possibly in brackets, with an
// IPv4-mapped IPv6 address read as the IPv4 one it maps.
func parseIPLiteral(s string) (netip.Addr, bool) {
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		s = s[1 : len(s)-1]
	}
	ip, err := netip.ParseAddr(s)
	if err != nil || ip.Zone() != "" {
		return netip.Addr{}, false
	}
	return ip.Unmap(), true
}

// checkHostName accepts a DNS host name in ASCII (lower case): labels of
// letters, digits, '-' and '_' (used by some service names), 1 to 63
// bytes each, 253 in all.
func checkHostName(name string) error {
	if name == "" {
		return errors.New("no host name")
	}
	if len(name) > 253 {
		return errors.New("host name longer than 253 characters")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" {
			return errors.New("empty label in host name")
		}
		if len(label) > 63 {
			return errors.New("label longer than 63 characters")
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return fmt.Errorf("label %q starts or ends with '-'", label)
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			case c == '*':
				return errors.New("'*' is allowed only as the whole first label (\"*.example.com\")")
			case c >= 0x80:
				return errors.New("non-ASCII host name; write it in its xn-- form")
			default:
				return fmt.Errorf("character %q is not allowed in a host name", c)
			}
		}
	}
	return nil
}

// normalizeHost reads the host of a request: an IP literal (canonical, in
// the form allow entries take) or a checked, lower-case name without a
// trailing dot.
func normalizeHost(host string) (string, bool, error) {
	if ip, ok := parseIPLiteral(host); ok {
		return ip.String(), true, nil
	}
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if err := checkHostName(name); err != nil {
		return "", false, err
	}
	return name, false, nil
}

// parseAllowList checks and normalizes every entry, dropping repeats.
func parseAllowList(raw []string) ([]string, error) {
	if len(raw) == 0 {
		return nil, errors.New("an empty allow list reaches no host; set \"network\": false instead")
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range raw {
		e, err := parseAllowEntry(r)
		if err != nil {
			return nil, err
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out, nil
}
