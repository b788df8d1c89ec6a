package sandbox_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/core/sandbox/confine"
	"github.com/piwasm/pi/internal/hostile"
	"golang.org/x/sys/unix"
)

// The seccomp filter is compiled by pi and handed to the helper in its
// spec: the program handed over is the one the command runs under. With
// the spec pi prints (network on), a command may create Unix and internet
// sockets but not netlink ones, which only the filter refuses (Landlock
// has no rule for socket families); the same spec with its filter swapped
// for one that allows everything lets netlink through, so the helper
// applies what it is given rather than a filter of its own.
func TestHandedFilterIsApplied(t *testing.T) {
	if p, _ := sandbox.Build(sandbox.Inputs{Cwd: t.TempDir(), Tmp: os.TempDir()}); p == nil || !p.Enforced() {
		t.Skip("the kernel cannot confine commands here")
	}
	var buf bytes.Buffer
	if err := sandbox.PrintSpec([]string{t.TempDir()}, &buf); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	run := func(spec string) string {
		t.Helper()
		out, err := exec.Command(exe, sandbox.HelperArg, spec, "--", exe, hostile.OpenSockets,
			fmt.Sprint(unix.AF_UNIX), fmt.Sprint(unix.AF_INET), fmt.Sprint(unix.AF_NETLINK)).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return string(out)
	}
	netlink := fmt.Sprintf("family %d: ", unix.AF_NETLINK)
	out := run(strings.TrimSpace(buf.String()))
	for _, fam := range []int{unix.AF_UNIX, unix.AF_INET} {
		if !strings.Contains(out, fmt.Sprintf("family %d: ok", fam)) {
			t.Errorf("family %d refused under pi's filter:\n%s", fam, out)
		}
	}
	if !strings.Contains(out, netlink+"operation not permitted") {
		t.Errorf("netlink not refused under pi's filter:\n%s", out)
	}

	var spec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &spec); err != nil {
		t.Fatal(err)
	}
	allowAll := confine.EncodeFilter([]unix.SockFilter{{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}})
	spec["filter"] = base64.StdEncoding.EncodeToString(allowAll)
	js, _ := json.Marshal(spec)
	if out := run(string(js)); !strings.Contains(out, netlink+"ok") {
		t.Errorf("with an allow-all filter handed over, netlink is still refused: the helper does not apply the filter it is given:\n%s", out)
	}
}
