package nsslookup

import (
	"bytes"
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// ParseAhosts parses what `getent ahosts NAME` prints: one line per
// address and socket type, the address, the type (STREAM, DGRAM or RAW)
// and, on the first line, the canonical name:
//
//	192.168.1.20    STREAM box.local
//	192.168.1.20    DGRAM
//	192.168.1.20    RAW
//
// It returns the addresses in the order printed, each once. Anything else
// (a line of another shape, an address that does not parse, an unknown
// socket type, a canonical name that is not a host name) is an error
// quoting the line: a dial goes to what NSS said or nowhere.
func ParseAhosts(out []byte) ([]netip.Addr, error) {
	var addrs []netip.Addr
	for n, line := range strings.SplitAfter(string(out), "\n") {
		if line == "" { // after the last newline
			continue
		}
		if !strings.HasSuffix(line, "\n") {
			return nil, fmt.Errorf("getent ahosts: line %d %q is not ended by a newline", n+1, line)
		}
		f := strings.Fields(line)
		if len(f) < 2 || len(f) > 3 || strings.ContainsAny(line, "\r\x00") {
			return nil, fmt.Errorf("getent ahosts: line %d %q is not an address, a socket type and a name", n+1, strings.TrimSuffix(line, "\n"))
		}
		a, err := netip.ParseAddr(f[0])
		if err != nil {
			return nil, fmt.Errorf("getent ahosts: line %d: %q is not an IP address", n+1, f[0])
		}
		switch f[1] {
		case "STREAM", "DGRAM", "RAW":
		default:
			return nil, fmt.Errorf("getent ahosts: line %d: %q is not a socket type", n+1, f[1])
		}
		if len(f) == 3 && !validName(f[2]) {
			return nil, fmt.Errorf("getent ahosts: line %d: %q is not a host name", n+1, f[2])
		}
		if !slices.Contains(addrs, a) {
			addrs = append(addrs, a)
		}
	}
	return addrs, nil
}

// HostsSources returns the sources the hosts line of an nsswitch.conf
// lists, in order and without their [STATUS=action] criteria: "files dns"
// for "hosts: files [NOTFOUND=return] dns". It reads the file as glibc
// does: '#' starts a comment, the last hosts line wins.
func HostsSources(conf []byte) []string {
	var srcs []string
	for line := range bytes.Lines(conf) {
		if i := bytes.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		db, rest, ok := strings.Cut(strings.TrimSpace(string(line)), ":")
		if !ok || strings.TrimSpace(db) != "hosts" {
			continue
		}
		srcs = srcs[:0]
		// Criteria may hold blanks ("[ NOTFOUND = return ]") or touch
		// the sources around them ("files[!UNAVAIL=return]dns").
		var word strings.Builder
		flush := func() {
			if word.Len() > 0 {
				srcs = append(srcs, strings.ToLower(word.String()))
				word.Reset()
			}
		}
		inCriteria := false
		for _, r := range rest {
			switch {
			case r == '[':
				flush()
				inCriteria = true
			case r == ']':
				flush()
				inCriteria = false
			case r == ' ' || r == '\t' || r == '\r' || r == '\n' || r == '\v' || r == '\f':
				flush()
			case !inCriteria:
				word.WriteRune(r)
			}
		}
		flush()
	}
	return srcs
}
