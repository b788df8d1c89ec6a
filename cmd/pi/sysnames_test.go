//go:build unix

package main

import (
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// A model server named by an mDNS name (box.local), which only the
// system's NSS resolves, answers pi -p as a user would run it: pi asks
// getent (a fake one here) and dials what it printed. When getent prints
// something else, the error says so.
func TestModelAtNSSName(t *testing.T) {
	srv := httptest.NewServer(&scripted.Server{Fallback: "Hello from box."})
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	for _, tc := range []struct{ name, getent, want string }{
		{"resolved", `printf '127.0.0.1       STREAM box.local\n127.0.0.1       DGRAM  \n'`, "Hello from box."},
		{"garbage", `echo 'mdns: daemon not running'`, `getent ahosts: line 1 "mdns: daemon not running" is not an address`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			bin := t.TempDir()
			log := filepath.Join(bin, "log")
			script := "#!/bin/sh\necho \"$@\" >> '" + log + "'\n" + tc.getent + "\n"
			if err := os.WriteFile(filepath.Join(bin, "getent"), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFiles(t, c.agentDir, map[string]string{
				"models.json":   `{"providers":{"mock":{"baseUrl":"http://box.local:` + u.Port() + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`,
				"settings.json": `{"retry":{"enabled":false}}`,
			})
			out, errOut, code := c.runPi([]string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")},
				"-p", "--model", "mock/mock-1", "--no-extensions", "--no-session", "hello")
			if got, _ := os.ReadFile(log); strings.TrimSpace(string(got)) != "ahosts box.local" {
				t.Errorf("getent ran with %q, want \"ahosts box.local\"", got)
			}
			if tc.name == "resolved" {
				if code != 0 || !strings.Contains(out, tc.want) {
					t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
				}
				return
			}
			if code == 0 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q, want it to contain %q", code, errOut, tc.want)
			}
		})
	}
}
