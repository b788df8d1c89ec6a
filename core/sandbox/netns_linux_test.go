package sandbox

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestNetNSListenerReleased: pi serves a command's namespace listener
// while the command runs and lets it go when the command exits, so
// neither the listener nor the namespace it holds outlives the command.
func TestNetNSListenerReleased(t *testing.T) {
	dir := t.TempDir()
	p, err := Build(Inputs{Settings: Settings{NetAllow: []string{"localhost"}}, Cwd: dir, Tmp: dir, Home: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Enforced() || !p.NetNamespace() {
		t.Skip("no allow-list or no network namespace here")
	}
	exe, _ := os.Executable()
	cmd, err := Shell{Policy: p, Exe: exe}.Command(context.Background(), "read -r _", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the listener served while the command runs", func() bool { return p.proxy.inNS.Load() == 1 })
	stdin.Write([]byte("\n"))
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the listener released after the command", func() bool { return p.proxy.inNS.Load() == 0 })
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
