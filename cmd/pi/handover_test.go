//go:build unix

package main

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/makerun"
	"github.com/piwasm/pi/internal/scripted"
)

// TestUIHandOver drives the two binaries make build installs: bin/pi,
// built without the terminal UI (tag noui), serves print mode on its own
// and hands interactive sessions to bin/pi-ui beside it, before the run
// has done anything; without a pi-ui of its own build it says so and
// stops.
func TestUIHandOver(t *testing.T) {
	if testing.Short() {
		t.Skip("builds pi twice")
	}
	// bin/pi links no UI package at all: that is the point of it.
	out, err := goCmd(".", "list", "-deps", "-tags", "noui", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == "github.com/piwasm/pi/ui" || strings.Contains(p, "bubbletea") || strings.Contains(p, "glamour") {
			t.Errorf("the noui build links %s", p)
		}
	}

	pair, lone, twin := t.TempDir(), t.TempDir(), t.TempDir()
	pi, ui := filepath.Join(pair, "pi"), filepath.Join(pair, "pi-ui")
	makeTargets(t, "pi", "pi-ui", "BIN="+pi, "UI_BIN="+ui, "STAMP=handover-test")
	link := func(from, to string) {
		if err := os.Link(from, to); err != nil {
			t.Fatal(err)
		}
	}
	link(pi, filepath.Join(lone, "pi"))    // no pi-ui beside it
	link(pi, filepath.Join(twin, "pi"))    // beside it a pi-ui
	link(pi, filepath.Join(twin, "pi-ui")) // that is bin/pi again
	sessions := func(c *cli) []string {
		var files []string
		filepath.WalkDir(filepath.Join(c.agentDir, "sessions"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		return files
	}
	setup := func(t *testing.T) (*cli, string) {
		c := newCLI(t)
		srv := httptest.NewServer(&scripted.Server{Fallback: "Hello from the scripted model."})
		t.Cleanup(srv.Close)
		writeFiles(t, c.agentDir, map[string]string{
			"models.json":   `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`,
			"settings.json": `{"lastChangelogVersion": "99.0.0"}`,
		})
		return c, t.TempDir()
	}

	t.Run("print mode needs no pi-ui", func(t *testing.T) {
		c, proj := setup(t)
		for _, args := range [][]string{
			{"-p", "--model", "mock/mock-1", "--no-extensions", "hello"},
			{"--mode", "json", "--model", "mock/mock-1", "--no-extensions", "hello"},
		} {
			cmd := exec.Command(filepath.Join(lone, "pi"), args...)
			cmd.Dir = proj
			cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+c.agentDir, "HOME="+c.home)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "Hello from the scripted model.") {
				t.Errorf("pi %v: %v\n%.2000s", args, err, out)
			}
		}
	})

	t.Run("interactive runs in pi-ui", func(t *testing.T) {
		c, proj := setup(t)
		tm := startTerminalExe(t, c, proj, pi, nil, "--model", "mock/mock-1", "--no-extensions")
		tm.waitFor("Ask pi")
		if runtime.GOOS == "linux" {
			// One process: pi became pi-ui (exec), it did not start it.
			exe, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(tm.cmd.Process.Pid), "exe"))
			if err != nil || exe != ui {
				t.Errorf("the session's process runs %q (%v), want %s", exe, err, ui)
			}
		}
		tm.typeLine("hello")
		tm.waitFor("Hello from the scripted model.")
		if len(sessions(c)) != 1 {
			t.Errorf("session files %v, want one", sessions(c))
		}
	})

	// files lists what is under dir, relative to it.
	files := func(dir string) []string {
		var out []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && p != dir {
				r, _ := filepath.Rel(dir, p)
				out = append(out, r)
			}
			return nil
		})
		return out
	}
	refused := func(t *testing.T, dir string, want ...string) {
		c, proj := setup(t)
		// A project that would ask the trust question first.
		writeFiles(t, proj, map[string]string{".pi/prompts/fixit.md": "Please fix $1."})
		before := files(c.home)
		tm := startTerminalExe(t, c, proj, filepath.Join(dir, "pi"), nil, "--model", "mock/mock-1")
		if !tm.exited(60 * time.Second) {
			t.Fatalf("pi did not stop; the screen shows:\n%s", tm.screen())
		}
		err := tm.cmd.Wait()
		s := tm.screen()
		if err == nil {
			t.Errorf("pi exited 0; the screen shows:\n%s", s)
		}
		for _, w := range want {
			if !strings.Contains(squeeze(s), squeeze(w)) {
				t.Errorf("the error does not say %q:\n%s", w, s)
			}
		}
		if strings.Contains(s, "Trust this project?") {
			t.Errorf("the trust question was asked:\n%s", s)
		}
		// Nothing written: no session, trust decision or setting.
		if after := files(c.home); !slices.Equal(before, after) {
			t.Errorf("pi wrote to its home: before %v, after %v", before, after)
		}
	}
	t.Run("pi-ui missing", func(t *testing.T) {
		refused(t, lone, filepath.Join(lone, "pi-ui")+", which is missing", "make build")
	})
	t.Run("pi-ui without the UI", func(t *testing.T) {
		refused(t, twin, filepath.Join(twin, "pi-ui")+" has no interactive UI", "make build")
	})
	t.Run("pi-ui of another build", func(t *testing.T) {
		c, proj := setup(t)
		cmd := exec.Command(ui, "-p", "--model", "mock/mock-1", "hello")
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+c.agentDir, "HOME="+c.home, handOverEnv+"=another-build")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "built apart") || strings.Contains(string(out), "Hello from") {
			t.Errorf("%v\n%s", err, out)
		}
	})
}

// makeTargets runs make in the repository with args (targets and
// variables), as a test that needs the binaries make build installs.
func makeTargets(t *testing.T, args ...string) {
	t.Helper()
	makerun.Run(t, "../..", args...)
}
