//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/internal/hostile"
	"github.com/piwasm/pi/internal/scripted"
	"golang.org/x/sys/unix"
)

// TestConfinedCommandSocketFamilies is issue 19's socket(AF_VSOCK) with the
// network off: through pi -p, a confined command may create Unix sockets
// only; VSOCK and netlink are refused with the network off and on, IPv4
// only with it off.
func TestConfinedCommandSocketFamilies(t *testing.T) {
	if p, _ := sandbox.Build(sandbox.Inputs{Cwd: t.TempDir(), Tmp: os.TempDir()}); p == nil || !p.Enforced() {
		t.Skip("the kernel cannot confine commands here")
	}
	for _, network := range []string{"off", "on"} {
		t.Run("network "+network, func(t *testing.T) {
			c := newCLI(t)
			script := fmt.Sprintf("%q %s %d %d %d %d", os.Args[0], hostile.OpenSockets, unix.AF_UNIX, unix.AF_VSOCK, unix.AF_NETLINK, unix.AF_INET)
			args, _ := json.Marshal(map[string]any{"command": script})
			scriptedModel(t, c, "openai-completions", []scripted.Reply{{Calls: []scripted.Call{{ID: "s", Name: "bash", Args: args}}}, {Text: "done"}})
			out, errs, code := c.run("-p", "--cwd", t.TempDir(), "--sandbox-network", network, "sockets")
			if code != 0 || out != "done\n" {
				t.Fatalf("exit %d stdout %q\nstderr: %s", code, out, errs)
			}
			text := resultOf(t, sessionMessages(t, c.agentDir), "s").Content.Text()
			want := map[int]bool{unix.AF_UNIX: true, unix.AF_VSOCK: false, unix.AF_NETLINK: false, unix.AF_INET: network == "on"}
			for fam, ok := range want {
				line := fmt.Sprintf("family %d: ", fam)
				got := strings.Contains(text, line+"ok")
				if !strings.Contains(text, line) || got != ok {
					t.Errorf("family %d: allowed %v, want %v\n%s", fam, got, ok, text)
				}
			}
		})
	}
}
