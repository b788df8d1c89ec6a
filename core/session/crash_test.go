package session

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/piwasm/pi/core/prompt"
)

// When PI_TEST_SESSION_WRITER names a file, the test binary becomes a writer
// that appends large entries until it is killed.
func TestMain(m *testing.M) {
	if path := os.Getenv("PI_TEST_SESSION_WRITER"); path != "" {
		writeForever(path)
		return
	}
	os.Exit(m.Run())
}

func writeForever(path string) {
	tr, err := Create(path, Header{ID: "crash", Cwd: "/"})
	if err != nil {
		os.Exit(3)
	}
	big := strings.Repeat("All work and no play makes a long transcript line. ", 4000) // ~200 KB per entry
	os.WriteFile(path+".ready", nil, 0o644)
	for i := 0; ; i++ {
		m := prompt.Message{Role: "user", Content: prompt.TextContent(big), Timestamp: int64(i)}
		if err := tr.Append(Entry{Type: TypeMessage, Message: &m}); err != nil {
			os.Exit(4)
		}
	}
}

func TestKillDuringWriteLosesAtMostTheTornLine(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns a writer process")
	}
	path := filepath.Join(t.TempDir(), "crash.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PI_TEST_SESSION_WRITER="+path)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(path + ".ready"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("writer never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	complete := strings.Count(string(data), "\n") - 1 // minus the header
	tr, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Problems) > 1 {
		t.Fatalf("more than the torn line lost: %+v", tr.Problems)
	}
	if len(tr.Snapshot()) != complete {
		t.Fatalf("loaded %d entries, file has %d complete lines", len(tr.Snapshot()), complete)
	}
	if complete < 1 {
		t.Fatal("writer wrote nothing in 300ms")
	}
	// Appending after the crash repairs the tail and the file loads clean.
	tr2, err := OpenAppend(path)
	if err != nil {
		t.Fatal(err)
	}
	m := prompt.Message{Role: "user", Content: prompt.TextContent("after the crash")}
	if err := tr2.Append(Entry{Type: TypeMessage, Message: &m}); err != nil {
		t.Fatal(err)
	}
	tr2.Close()
	tr3, err := Load(path)
	if err != nil || len(tr3.Problems) != 0 || len(tr3.Snapshot()) != complete+1 {
		t.Fatalf("after repair: err=%v problems=%+v entries=%d want %d", err, tr3.Problems, len(tr3.Snapshot()), complete+1)
	}
}
