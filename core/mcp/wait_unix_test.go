//go:build unix

package mcp

import (
	"context"
	"testing"
	"time"
)

// Issue 33: a server that never answers kept every prompt waiting (up to
// 10 s each) until its own timeout failed it. The first prompt waits for
// it once; later ones go on at once, and the hang is reported once.
func TestHungServerDelaysOnlyTheFirstPrompt(t *testing.T) {
	cfg := &Config{Servers: []*Server{{
		Name: "mute", Transport: "stdio", Command: "sh", Args: []string{"-c", "cat >/dev/null"},
		Timeout: time.Hour, Enabled: true, Exposure: Direct,
	}}}
	m := NewManager(cfg, Options{Cwd: t.TempDir()})
	defer m.Close()
	m.Start()
	m.Wait(context.Background(), 50*time.Millisecond)
	p := m.NewProblems()
	if len(p) != 1 || p[0].State != StateConnecting {
		t.Fatalf("the hung server was not reported after the first wait: %+v", p)
	}
	done := make(chan struct{})
	go func() {
		m.Wait(context.Background(), time.Hour)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the second prompt waited for the hung server again")
	}
	if p := m.NewProblems(); len(p) != 0 {
		t.Errorf("reported again: %+v", p)
	}
}
