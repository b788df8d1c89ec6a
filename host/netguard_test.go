package host

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/piwasm/pi/abi"
)

// Hole: the network allow-list was checked only on the first URL and
// without its port. A granted host that redirects elsewhere, a granted host
// name on another port, and a pattern matching every host must all fail to
// reach the target.
func TestNetworkGrantHoldsForRedirectsAndPorts(t *testing.T) {
	ctx := context.Background()
	var targetHits, grantedHits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targetHits.Add(1)
		w.WriteHeader(299)
	}))
	defer target.Close()
	tu, _ := url.Parse(target.URL)
	elsewhere := "http://localhost:" + tu.Port() + "/"
	granted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		grantedHits.Add(1)
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, elsewhere, http.StatusFound)
		case "/same":
			http.Redirect(w, r, "/ok", http.StatusFound)
		default:
			w.WriteHeader(222)
		}
	}))
	defer granted.Close()
	gu, _ := url.Parse(granted.URL)

	netPkg := func(t *testing.T, pattern, u string) *Extension {
		m := strings.Replace(hostileManifest, "mode: ok", "mode: net\n  url: "+u, 1)
		m = strings.Replace(m, "capabilities:\n", "capabilities:\n  network: [\""+pattern+"\"]\n", 1)
		return load(t, Grants{"hostile": {Network: []string{pattern}}}, pkg(t, "hostile", m))[0]
	}
	grantedPort := "127.0.0.1:" + gu.Port()
	cases := []struct {
		name, pattern, url string
		want               string // the status the guest reports, or "" for a refused call
	}{
		{"granted host and port", grantedPort, granted.URL + "/ok", "222"},
		{"redirect on the granted host", grantedPort, granted.URL + "/same", "222"},
		{"redirect to another host", grantedPort, granted.URL + "/away", ""},
		{"granted name on another port", "127.0.0.1", target.URL, ""},
		{"granted name and port, other port", grantedPort, target.URL, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := targetHits.Load()
			e := netPkg(t, c.pattern, c.url)
			res, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil)
			if c.want != "" {
				if err != nil || res.Message != c.want {
					t.Fatalf("allowed request: %+v %v", res, err)
				}
				return
			}
			ce := callErr(t, err, "hostile", CauseTrap)
			if !strings.Contains(ce.Error(), "not allowed") {
				t.Fatalf("refusal does not say why: %v", ce)
			}
			if n := targetHits.Load() - before; n != 0 {
				t.Fatalf("the target was reached %d times", n)
			}
		})
	}
	if grantedHits.Load() == 0 {
		t.Fatal("the granted server was never reached: the test checks nothing")
	}

	// A pattern that matches every host is not a grant anyone can give.
	for _, p := range []string{"*", "{api.example.com,*}", "*.com"} {
		m := strings.Replace(hostileManifest, "capabilities:\n", fmt.Sprintf("capabilities:\n  network: [%q]\n", p), 1)
		exts, diags := testRT.Load(ctx, []string{pkg(t, "hostile", m)}, Grants{"hostile": {Network: []string{p}}})
		if len(exts) != 0 || len(diags) != 1 || diags[0].Kind != DiagManifest || !strings.Contains(diags[0].Message, "capabilities.network[0]") {
			t.Fatalf("pattern %q: exts %d, diags %v", p, len(exts), diags)
		}
	}
}

// Requests that do not come from a guest pass the guard untouched.
func TestNetworkGuardLeavesOtherRequestsAlone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/r" {
			http.Redirect(w, r, "/done", http.StatusFound)
			return
		}
		w.WriteHeader(204)
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/r")
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("%v %v", resp, err)
	}
	resp.Body.Close()
}
