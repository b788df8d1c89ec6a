//go:build unix

package main

import (
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/scripted"
)

// TestCtrlCWhileStreamingPrintsTheTextSoFar: SIGINT in the middle of a
// streamed reply prints the part that arrived, exits 130, and the session
// stays one that -c continues (the partial reply in its history).
func TestCtrlCWhileStreamingPrintsTheTextSoFar(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()
	full := "The quick brown fox jumps over the lazy dog, again and again and again and again."
	s := &scripted.Server{Replies: []scripted.Reply{{Text: full, DelayMs: 150}, {Text: "Continued."}}}
	srv := httptest.NewServer(s)
	defer srv.Close()
	writeFiles(t, c.agentDir, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"m"}]}}}`})
	p := startPi(t, c, proj, "-p", "tell me")
	deadline := time.Now().Add(30 * time.Second)
	for s.Served() < 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(1500 * time.Millisecond) // a few fragments arrive; the whole reply takes over 2 s
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(t, 20*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130\nstderr: %s", code, p.stderr.String())
	}
	got := strings.TrimSuffix(p.stdout.String(), "\n")
	if got == "" || got == full || !strings.HasPrefix(full, got) {
		t.Fatalf("stdout %q: want the part of the reply that arrived", p.stdout.String())
	}
	q := startPi(t, c, proj, "-p", "-c", "go on")
	if code := q.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("continue: exit %d\nstderr: %s", code, q.stderr.String())
	}
	if q.stdout.String() != "Continued.\n" {
		t.Errorf("continue stdout %q", q.stdout.String())
	}
	reqs := s.Requests()
	if last := string(reqs[len(reqs)-1]); !strings.Contains(last, got) {
		t.Errorf("the continued request lacks the partial reply %q:\n%s", got, last)
	}
}
