package nsslookup

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestParseAhosts(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      []string // nil with err
		err       string
	}{
		{name: "one v4", out: "192.168.1.20    STREAM box.local\n192.168.1.20    DGRAM  \n192.168.1.20    RAW    \n", want: []string{"192.168.1.20"}},
		{name: "v6 then v4", out: "fe80::1%eth0    STREAM box.local\nfe80::1%eth0    DGRAM  \n10.0.0.2        STREAM \n10.0.0.2        DGRAM  \n", want: []string{"fe80::1%eth0", "10.0.0.2"}},
		{name: "tabs", out: "::1\tSTREAM\tlocalhost\n", want: []string{"::1"}},
		{name: "empty", out: "", want: nil},
		{name: "blank line", out: "10.0.0.2 STREAM\n\n", err: `line 2 "" is not an address`},
		{name: "no newline", out: "10.0.0.2 STREAM", err: "not ended by a newline"},
		{name: "one field", out: "10.0.0.2\n", err: `line 1 "10.0.0.2" is not an address`},
		{name: "four fields", out: "10.0.0.2 STREAM a b\n", err: "is not an address, a socket type and a name"},
		{name: "bad address", out: "10.0.0.256 STREAM x\n", err: `"10.0.0.256" is not an IP address`},
		{name: "bad type", out: "10.0.0.2 SEQPACKET x\n", err: `"SEQPACKET" is not a socket type`},
		{name: "bad name", out: "10.0.0.2 STREAM -x\n", err: `"-x" is not a host name`},
		{name: "carriage return", out: "10.0.0.2 STREAM x\r\n", err: "is not an address"},
		{name: "prose", out: "getent: unknown database\n", err: `"getent:" is not an IP address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseAhosts([]byte(tc.out))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q (got %v)", err, tc.err, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, a := range got {
				s = append(s, a.String())
			}
			if !slices.Equal(s, tc.want) {
				t.Fatalf("got %q, want %q", s, tc.want)
			}
		})
	}
}

func TestHostsSources(t *testing.T) {
	for _, tc := range []struct{ conf, want string }{
		{"hosts: files dns\n", "files dns"},
		{"passwd: files\nhosts:          files mdns4_minimal [NOTFOUND=return] dns myhostname\n", "files mdns4_minimal dns myhostname"},
		{"hosts: files [ NOTFOUND = return ] resolve[!UNAVAIL=return]dns\n", "files resolve dns"},
		{"# hosts: ldap\nhosts: files # mdns\n", "files"},
		{"hosts: ldap\nhosts: files dns\n", "files dns"}, // the last line wins
		{"HOSTS: ldap\n", ""},
		{"networks: files\n", ""},
		{"hosts:\tFiles\tDNS", "files dns"},
	} {
		if got := strings.Join(HostsSources([]byte(tc.conf)), " "); got != tc.want {
			t.Errorf("HostsSources(%q) = %q, want %q", tc.conf, got, tc.want)
		}
	}
}

func FuzzParseAhosts(f *testing.F) {
	f.Add([]byte("192.168.1.20    STREAM box.local\n192.168.1.20    DGRAM  \n"))
	f.Add([]byte("fe80::1%eth0 RAW\n"))
	f.Add([]byte("garbage\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		addrs, err := ParseAhosts(out)
		if err != nil {
			return
		}
		// What parsed, printed again as getent would, parses the same.
		var b strings.Builder
		for _, a := range addrs {
			if !a.IsValid() {
				t.Fatalf("invalid address from %q", out)
			}
			fmt.Fprintf(&b, "%-15s STREAM\n", a)
		}
		again, err := ParseAhosts([]byte(b.String()))
		if err != nil || !slices.Equal(again, addrs) {
			t.Fatalf("%q: %v then %v (%v)", out, addrs, again, err)
		}
		for i, a := range addrs {
			if slices.Index(addrs, a) != i {
				t.Fatalf("%v repeated in %v", a, addrs)
			}
			if _, err := netip.ParseAddr(a.String()); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzHostsSources(f *testing.F) {
	f.Add([]byte("hosts: files mdns4_minimal [NOTFOUND=return] dns\n"))
	f.Add([]byte("hosts: [ a ] b[c]d # e\n"))
	f.Fuzz(func(t *testing.T, conf []byte) {
		for _, s := range HostsSources(conf) {
			if s == "" || strings.ContainsAny(s, "[] \t\n#") {
				t.Fatalf("source %q from %q", s, conf)
			}
		}
	})
}
