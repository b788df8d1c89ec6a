package sandbox

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// hasChildren, which lets KillDescendants skip its walk of /proc, sees a
// running child and a child that exited but is not yet reaped (a zombie
// is still a child: KillDescendants must not skip what the walk finds),
// and agrees with the walk when they are gone.
func TestHasChildren(t *testing.T) {
	walk := func() bool { return len(children(os.Getpid())) > 0 }
	if got, want := hasChildren(), walk(); got != want {
		t.Fatalf("before: hasChildren() = %v, the /proc walk finds children: %v", got, want)
	}
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	if !hasChildren() {
		t.Error("a running child: hasChildren() = false")
	}
	_ = sleep.Process.Kill()
	// Wait for it to exit without reaping it.
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, sleep.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if !hasChildren() {
		t.Error("a zombie child: hasChildren() = false")
	}
	_ = sleep.Wait()
	if got, want := hasChildren(), walk(); got != want {
		t.Errorf("after: hasChildren() = %v, the /proc walk finds children: %v", got, want)
	}
}
