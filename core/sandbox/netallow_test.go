package sandbox

import (
	"reflect"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/settings"
)

func TestParseAllowEntry(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "github.com", want: "github.com"},
		{in: " GitHub.COM. ", want: "github.com"},
		{in: "*.npmjs.org", want: "*.npmjs.org"},
		{in: "*.Example.co.uk", want: "*.example.co.uk"},
		{in: "_acme.example.com", want: "_acme.example.com"},
		{in: "localhost", want: "localhost"},
		{in: "10.1.2.3", want: "10.1.2.3"},
		{in: "::1", want: "::1"},
		{in: "[2001:DB8::1]", want: "2001:db8::1"},
		{in: "::ffff:127.0.0.1", want: "127.0.0.1"},
		{in: "", err: "empty"},
		{in: "  ", err: "empty"},
		{in: "*", err: "every host"},
		{in: "https://github.com", err: "scheme"},
		{in: "github.com/org", err: "path"},
		{in: "github.com:443", err: "port"},
		{in: "1.2.3.4:80", err: "port"},
		{in: "user@github.com", err: "user info"},
		{in: "*.com", err: "two labels"},
		{in: "git*.com", err: "'*'"},
		{in: "*.*.example.com", err: "'*'"},
		{in: "a..b", err: "empty label"},
		{in: "-a.com", err: "starts or ends"},
		{in: "exämple.com", err: "xn--"},
		{in: "a b.com", err: "not allowed"},
		{in: strings.Repeat("a", 64) + ".com", err: "63"},
	}
	for _, tt := range tests {
		got, err := parseAllowEntry(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: got %q, %v; want an error containing %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestAllowListMatch(t *testing.T) {
	a := newAllowList([]string{"github.com", "*.npmjs.org", "10.1.2.3", "::1"})
	tests := []struct {
		host          string
		listed, exact bool
	}{
		{"github.com", true, true},
		{"api.github.com", false, false}, // exact names do not cover subdomains
		{"evilgithub.com", false, false},
		{"github.com.evil.org", false, false},
		{"registry.npmjs.org", true, false},
		{"a.b.npmjs.org", true, false},
		{"npmjs.org", false, false}, // "*." needs at least one label
		{"evilnpmjs.org", false, false},
		{"10.1.2.3", true, true},
		{"10.1.2.4", false, false},
		{"::1", true, true},
		{"", false, false},
	}
	for _, tt := range tests {
		listed, exact := a.match(tt.host)
		if listed != tt.listed || exact != tt.exact {
			t.Errorf("%q: listed %v exact %v, want %v %v", tt.host, listed, exact, tt.listed, tt.exact)
		}
	}
}

func TestNormalizeHost(t *testing.T) {
	for in, want := range map[string]string{"GitHub.com.": "github.com", "[::ffff:10.0.0.1]": "10.0.0.1", "::1": "::1"} {
		got, _, err := normalizeHost(in)
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a b", "a..b", "*.x.com", "x.com\x00"} {
		if got, _, err := normalizeHost(bad); err == nil {
			t.Errorf("%q: accepted as %q", bad, got)
		}
	}
}

func TestParseNetworkSetting(t *testing.T) {
	const file = "/p/.pi/settings.json"
	tests := []struct {
		raw   string
		allow []string
		err   string
	}{
		{raw: `{"network":{"allow":["GitHub.com","*.npmjs.org","github.com"]}}`, allow: []string{"github.com", "*.npmjs.org"}},
		{raw: `{"network":{"allow":[]}}`, err: "empty allow list"},
		{raw: `{"network":{}}`, err: "needs \"allow\""},
		{raw: `{"network":{"allow":["ok.com"],"deny":["x.com"]}}`, err: "unknown field"},
		{raw: `{"network":{"allow":["https://x.com"]}}`, err: "scheme"},
		{raw: `{"network":{"allow":"x.com"}}`, err: "sandbox.network"},
	}
	for _, tt := range tests {
		s, err := parseSettings([]byte(tt.raw), file, "/home/u")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), file) {
				t.Errorf("%s: err = %v, want one naming the file and containing %q", tt.raw, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(s.NetAllow, tt.allow) || s.Network != nil {
			t.Errorf("%s: %+v, %v; want allow %v", tt.raw, s, err, tt.allow)
		}
	}
}

func TestNetworkMerge(t *testing.T) {
	on, off := Settings{Network: boolp(true)}, Settings{Network: boolp(false)}
	a, b := Settings{NetAllow: []string{"a.com"}}, Settings{NetAllow: []string{"b.com", "a.com"}}
	if got := off.Merge(a); got.Network != nil || !reflect.DeepEqual(got.NetAllow, []string{"a.com"}) {
		t.Errorf("off then allow: %+v", got)
	}
	if got := a.Merge(on); got.NetAllow != nil || got.Network == nil || !*got.Network {
		t.Errorf("allow then on: %+v", got)
	}
	if got := a.Merge(b); !reflect.DeepEqual(got.NetAllow, []string{"a.com", "b.com"}) {
		t.Errorf("allow then allow: %+v", got)
	}
	if got := a.Merge(Settings{Mode: "read-only"}); !reflect.DeepEqual(got.NetAllow, []string{"a.com"}) {
		t.Errorf("a file without network keeps the list: %+v", got)
	}
}

func TestBuildNetAllow(t *testing.T) {
	enf := Enforcement{OS: "linux", LandlockABI: 7, Seccomp: true, MountNS: true}
	s := Settings{NetAllow: []string{"github.com"}}
	p, err := build(Inputs{Settings: s, Cwd: "/w"}, enf)
	if err != nil || p.Network || p.NetworkPolicy() != "allow-list" || p.proxy == nil || !p.Enforced() || p.Notice() != "" {
		t.Fatalf("allow-list: %+v, %v, notice %q", p, err, p.Notice())
	}
	for flag, want := range map[string]string{"on": "on", "off": "off"} {
		p, _ := build(Inputs{Settings: s, Flags: Flags{Network: flag}}, enf)
		if p.NetworkPolicy() != want || p.NetAllow != nil {
			t.Errorf("--sandbox-network %s over an allow-list: %s", flag, p.NetworkPolicy())
		}
	}
	if _, err := build(Inputs{Settings: s, Flags: Flags{Network: "allow"}}, enf); err == nil || !strings.Contains(err.Error(), "in settings") {
		t.Errorf("--sandbox-network allow: %v", err)
	}
	if p, _ := build(Inputs{Settings: s, Flags: Flags{Mode: "off"}}, enf); p.NetworkPolicy() != "on" {
		t.Errorf("mode off: network %s", p.NetworkPolicy())
	}
	// Landlock without TCP rules: refuse, never run with the network on.
	old := Enforcement{OS: "linux", LandlockABI: 3, Seccomp: true}
	p, _ = build(Inputs{Settings: s}, old)
	if p.Enforced() || !strings.Contains(p.Notice(), "ABI 4") {
		t.Errorf("ABI 3: enforced %v, notice %q", p.Enforced(), p.Notice())
	}
	if _, err := (Shell{Policy: p, Exe: "/bin/false"}).Command(t.Context(), "true", "/", nil); err == nil || !strings.Contains(err.Error(), "network allow-list") {
		t.Errorf("ABI 3: command started (%v)", err)
	}
	if _, err := build(Inputs{Settings: s, Flags: Flags{Mode: "require"}}, old); err == nil {
		t.Error("ABI 3 with --sandbox require: built")
	}
	none := Enforcement{OS: "linux"}
	p, _ = build(Inputs{Settings: s}, none)
	if _, err := (Shell{Policy: p}).Command(t.Context(), "true", "/", nil); err == nil {
		t.Error("no Landlock: an allow-list command ran unconfined")
	}
	// An MCP server's entry decides its own network.
	p, _ = build(Inputs{Settings: s}, enf)
	if n := p.Narrow(nil, true); n.NetworkPolicy() != "on" {
		t.Errorf("Narrow(network) = %s", n.NetworkPolicy())
	}
	if n := p.Narrow(nil, false); n.NetworkPolicy() != "off" {
		t.Errorf("Narrow(no network) = %s", n.NetworkPolicy())
	}
}

func FuzzParseAllowEntry(f *testing.F) {
	for _, s := range []string{"github.com", "*.npmjs.org", "[::1]", "10.0.0.1", "https://x", "a:1", "*", "xn--bcher-kva.example", "ä.com", "*.*.x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		e, err := parseAllowEntry(raw)
		if err != nil {
			return
		}
		// A normalized entry parses to itself, and the list built from it
		// matches the host it names (a wildcard: a name below it).
		again, err := parseAllowEntry(e)
		if err != nil || again != e {
			t.Fatalf("%q -> %q -> %q, %v", raw, e, again, err)
		}
		host := e
		if rest, ok := strings.CutPrefix(e, "*."); ok {
			host = "x." + rest
			if len(host) > 253 {
				return
			}
		}
		h, _, err := normalizeHost(host)
		if err != nil {
			t.Fatalf("entry %q: host %q not accepted: %v", e, host, err)
		}
		if listed, _ := newAllowList([]string{e}).match(h); !listed {
			t.Fatalf("entry %q does not match %q", e, h)
		}
		if strings.HasPrefix(e, "*.") {
			if listed, _ := newAllowList([]string{e}).match(e[2:]); listed {
				t.Fatalf("wildcard %q matches its own domain", e)
			}
		}
	})
}

// A mistyped allow-list turns the network off rather than leaving the
// default (on) in force.
func TestBadAllowListFailsClosed(t *testing.T) {
	s, errs := LoadSettings([]settings.Value{
		{File: "/a/global.json", Raw: []byte(`{"network":true}`)},
		{File: "/p/.pi/settings.json", Raw: []byte(`{"network":{"allow":["https://github.com"]}}`)},
	}, "/home/u")
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "no network until it is fixed") {
		t.Errorf("errs = %v", errs)
	}
	if s.Network == nil || *s.Network || s.NetAllow != nil {
		t.Errorf("merged %+v, want the network off", s)
	}
}

func TestNetAllowNote(t *testing.T) {
	p, err := build(Inputs{Settings: Settings{NetAllow: []string{"github.com"}}, Cwd: "/w"}, Enforcement{OS: "linux", LandlockABI: 7, Seccomp: true, MountNS: true})
	if err != nil {
		t.Fatal(err)
	}
	body := "pi sandbox: host evil.test is refused by the network allow-list: not on the list (settings sandbox.network.allow)"
	if n := p.Explain(body, 22); !strings.Contains(n, "host evil.test is refused") || !strings.Contains(n, "github.com") {
		t.Errorf("403 body: %q", n)
	}
	if n := p.Explain("curl: (6) Could not resolve host: example.com", 6); !strings.Contains(n, "ignores the proxy") {
		t.Errorf("a program around the proxy: %q", n)
	}
	if n := p.Explain("make: *** [all] Error 2", 2); n != "" {
		t.Errorf("unrelated failure: %q", n)
	}
	n := p.netAllowNote("", []refusal{{"gh.example", "it resolves to 10.0.0.1, a local address, which only an entry naming the host exactly allows"}, {"gh.example", reasonNotListed}})
	if strings.Count(n, "gh.example is refused") != 1 || !strings.Contains(n, "10.0.0.1") {
		t.Errorf("recorded refusals: %q", n)
	}
	if n := p.Explain(n, 1); !strings.Contains(n, "gh.example") {
		t.Errorf("the note read back (as pi's denial record does): %q", n)
	}
}
