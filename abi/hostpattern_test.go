package abi

import (
	"strings"
	"testing"
)

func TestValidateHostPattern(t *testing.T) {
	cases := []struct {
		p  string
		ok bool
	}{
		{"api.example.com", true},
		{"localhost", true},
		{"127.0.0.1", true},
		{"127.0.0.1:8080", true},
		{"*.example.com", true},
		{"*.example.com:8443", true},
		{"API.Example.COM", true},
		// Patterns that reach every host, or most of them, are refused.
		{"*", false},
		{"*:443", false},
		{"*.com", false},
		{"{api.example.com,*}", false},
		{"api.*.com", false},
		{"ap?.example.com", false},
		{"[a-z].example.com", false},
		{"**.example.com", false},
		{"", false},
		{"example.com:", false},
		{"example.com:0", false},
		{"example.com:65536", false},
		{"example.com:080", false},
		{"example.com:80:80", false},
		{"http://example.com", false},
		{"example.com/path", false},
		{"-bad.example.com", false},
		{"a..b", false},
		{"example.com.", false},
	}
	for _, c := range cases {
		if err := ValidateHostPattern(c.p); (err == nil) != c.ok {
			t.Errorf("%q: ok=%v, err=%v", c.p, c.ok, err)
		}
	}
	m := Manifest{Name: "net", ABI: Version, Hooks: []string{HookInput}, Capabilities: Capabilities{Network: []string{"{api.example.com,*}"}}}
	errs := m.Validate()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "capabilities.network[0]") {
		t.Fatalf("manifest with a match-everything pattern: %v", errs)
	}
}

func TestMatchHost(t *testing.T) {
	cases := []struct {
		p, scheme, host string
		port            int
		want            bool
	}{
		{"api.example.com", "https", "api.example.com", 443, true},
		{"api.example.com", "http", "api.example.com", 80, true},
		{"api.example.com", "https", "API.example.com", 443, true},
		{"api.example.com", "https", "api.example.com", 8443, false},
		{"api.example.com", "http", "api.example.com", 443, false},
		{"api.example.com", "https", "evil.com", 443, false},
		{"api.example.com", "https", "api.example.com.evil.com", 443, false},
		{"api.example.com:8443", "https", "api.example.com", 8443, true},
		{"api.example.com:8443", "https", "api.example.com", 443, false},
		{"127.0.0.1:9000", "http", "127.0.0.1", 9000, true},
		{"*.example.com", "https", "a.example.com", 443, true},
		{"*.example.com", "https", "a.b.example.com", 443, true},
		{"*.example.com", "https", "example.com", 443, false},
		{"*.example.com", "https", "badexample.com", 443, false},
		{"*", "https", "anything", 443, false},
		{"{a.com,*}", "https", "a.com", 443, false},
	}
	for _, c := range cases {
		if got := MatchHost(c.p, c.scheme, c.host, c.port); got != c.want {
			t.Errorf("MatchHost(%q, %s://%s:%d) = %v", c.p, c.scheme, c.host, c.port, got)
		}
	}
}

func FuzzHostPattern(f *testing.F) {
	for _, s := range []string{"api.example.com", "*.example.com:8443", "*", "{a,*}", "a:0"} {
		f.Add(s, "b.example.com", 443)
	}
	f.Fuzz(func(t *testing.T, p, host string, port int) {
		err := ValidateHostPattern(p)
		if err != nil && MatchHost(p, "https", host, port) {
			t.Fatalf("invalid pattern %q matched %q", p, host)
		}
		if err == nil && strings.ContainsAny(p, "{}[]?/ ") {
			t.Fatalf("pattern %q with glob syntax accepted", p)
		}
		// No valid pattern matches two unrelated top-level names.
		if err == nil && MatchHost(p, "https", "x.aaaa", 443) && MatchHost(p, "https", "x.bbbb", 443) {
			t.Fatalf("pattern %q matches every host", p)
		}
	})
}
