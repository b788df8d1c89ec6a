package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/abi"
	"github.com/tetratelabs/wazero/experimental"
)

// snapRun loads dir on a runtime of its own over agentDir (no cache at all
// when ""), calls before_agent_start with input, and returns the result as
// JSON, whether the instance was restored from a snapshot, and the log.
func snapRun(t *testing.T, agentDir, dir, input string, grants Grants) (out string, restored bool, log *logSink) {
	t.Helper()
	ctx := context.Background()
	log = &logSink{}
	r, err := NewRuntime(ctx, Config{AgentDir: agentDir, ProjectRoot: projectRoot, Log: log.add})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(ctx)
	exts, diags := r.Load(ctx, []string{dir}, grants)
	for _, d := range diags {
		if d.Kind != DiagGrant {
			t.Fatalf("diagnostic: %s", d)
		}
	}
	if len(exts) != 1 {
		t.Fatalf("loaded %d extensions", len(exts))
	}
	e := exts[0]
	res, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: input, SystemPrompt: "base"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	e.mu.Lock()
	restored = e.inst != nil && e.inst.restored
	e.mu.Unlock()
	return string(b), restored, log
}

// snapshotFiles lists the snapshots under agentDir.
func snapshotFiles(t *testing.T, agentDir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(agentDir, "cache", "snapshots", "*"))
	var files []string
	for _, f := range m {
		if !strings.HasPrefix(filepath.Base(f), ".") {
			files = append(files, f)
		}
	}
	return files
}

// A guest restored from its snapshot answers exactly as one started
// afresh, and as one started where no snapshot is ever taken: the same
// random numbers and clock readings (sdkguest's "monotonic": math/rand
// seeded by the runtime at start-up, the fixed wall clock and the fake
// monotonic clock, which counts every reading since the start),
// and the examples' sections.
func TestSnapshotRestoresTheSameGuest(t *testing.T) {
	files := Grants{"git-branch": {Files: []string{".git/HEAD"}}}
	cases := []struct{ name, dir, input string }{
		{"monotonic", pkg(t, "sdkguest", "name: sdk\nabi: 1\nhooks: [before_agent_start]\n"), "monotonic"},
		{"team-section", examplePkg(t, "team-section"), "hi"},
		{"git-branch", examplePkg(t, "git-branch"), "hi"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			agent := t.TempDir()
			none, _, _ := snapRun(t, "", c.dir, c.input, files)
			fresh, restored, _ := snapRun(t, agent, c.dir, c.input, files)
			if restored {
				t.Fatal("first start restored from a snapshot")
			}
			if n := len(snapshotFiles(t, agent)); n != 1 {
				t.Fatalf("%d snapshots after the first start, want 1", n)
			}
			again, restored, _ := snapRun(t, agent, c.dir, c.input, files)
			if !restored {
				t.Fatal("second start not restored from the snapshot")
			}
			if fresh != none || again != fresh {
				t.Fatalf("results differ:\n no cache: %s\n fresh:    %s\n restored: %s", none, fresh, again)
			}
		})
	}
}

// A damaged snapshot is not used: the guest starts afresh, answers as
// always, a warning names the file, and a good snapshot replaces it.
func TestSnapshotDamagedFallsBack(t *testing.T) {
	dir := pkg(t, "sdkguest", "name: sdk\nabi: 1\nhooks: [before_agent_start]\n")
	damage := map[string]func(t *testing.T, path string){
		"truncated": func(t *testing.T, path string) {
			st, _ := os.Stat(path)
			if err := os.Truncate(path, st.Size()-4096); err != nil {
				t.Fatal(err)
			}
		},
		"image byte":  func(t *testing.T, path string) { flipByte(t, path, snapshotAlign+100) },
		"header byte": func(t *testing.T, path string) { flipByte(t, path, 20) },
		"empty": func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"globals count": func(t *testing.T, path string) {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt([]byte{0xff, 0xff, 0xff, 0x7f}, 40)
			f.Close()
		},
	}
	for name, f := range damage {
		t.Run(name, func(t *testing.T) {
			agent := t.TempDir()
			want, _, _ := snapRun(t, agent, dir, "entropy", nil)
			snaps := snapshotFiles(t, agent)
			if len(snaps) != 1 {
				t.Fatalf("%d snapshots", len(snaps))
			}
			f(t, snaps[0])
			got, restored, log := snapRun(t, agent, dir, "entropy", nil)
			if restored {
				t.Fatal("restored from a damaged snapshot")
			}
			if got != want {
				t.Fatalf("result %s, want %s", got, want)
			}
			if !log.has("snapshot") || !log.has(filepath.Base(snaps[0])) || !log.has("starts afresh") {
				t.Fatalf("no warning naming the snapshot: %q", log.lines)
			}
			if _, err := loadSnapshot(snaps[0], 64<<20); err != nil {
				t.Fatalf("snapshot not rewritten: %v", err)
			}
			if got, restored, _ := snapRun(t, agent, dir, "entropy", nil); !restored || got != want {
				t.Fatalf("after the rewrite: restored %v, result %s", restored, got)
			}
		})
	}
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := []byte{0}
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x5a
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// A guest granted the clock, randomness or an environment variable starts
// differently each time: it is never snapshotted.
func TestSnapshotNotTakenForWorldlyGrants(t *testing.T) {
	for _, c := range []struct{ name, caps string }{
		{"clock", "capabilities:\n  clock: true\n"},
		{"random", "capabilities:\n  random: true\n"},
		{"env", "capabilities:\n  env: [PI_TEST_SNAPSHOT_VAR]\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("PI_TEST_SNAPSHOT_VAR", "x")
			agent := t.TempDir()
			dir := pkg(t, "sdkguest", "name: sdk\nabi: 1\nhooks: [before_agent_start]\n"+c.caps)
			g := Grants{"sdk": {Clock: true, Random: true, Env: []string{"PI_TEST_SNAPSHOT_VAR"}}}
			for range 2 {
				if _, restored, _ := snapRun(t, agent, dir, "entropy", g); restored {
					t.Fatal("restored from a snapshot")
				}
			}
			if n := len(snapshotFiles(t, agent)); n != 0 {
				t.Fatalf("%d snapshots taken", n)
			}
		})
	}
}

// A start whose effects a snapshot would not repeat (a host function
// called, stderr written, a log line) or that changed a table is not
// captured.
func TestSnapshotCaptureRefusesSideEffects(t *testing.T) {
	e := load1(t, "sdkguest", "name: sdk\nabi: 1\nhooks: [before_agent_start]\n")
	ctx := context.Background()
	e.mu.Lock()
	defer e.mu.Unlock()
	inst, err := e.startInstance(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.close()
	w := &snapshotWatch{tables: experimental.TableReferences(inst.mod)}
	if _, ok := inst.capture(w); !ok {
		t.Fatal("a clean start was not captured")
	}
	for name, spoil := range map[string]func(i *instance) func(){
		"host call": func(i *instance) func() { i.hostCalls++; return func() { i.hostCalls-- } },
		"log line":  func(i *instance) func() { i.logLines++; return func() { i.logLines-- } },
		"stderr":    func(i *instance) func() { i.stderr.Write([]byte("x")); return i.stderr.reset },
		"table": func(i *instance) func() {
			old := w.tables
			w.tables = append([]uintptr{1}, old...)
			return func() { w.tables = old }
		},
	} {
		undo := spoil(inst)
		if _, ok := inst.capture(w); ok {
			t.Errorf("%s: captured", name)
		}
		undo()
	}
}

// BenchmarkGuestStart is a Go guest's start as a process with every hook
// to run pays it, its module already compiled (cache hit): afresh (data
// segments applied, the Go runtime's initializer run) and restored from
// its snapshot (checked, mapped, globals set).
func BenchmarkGuestStart(b *testing.B) {
	e := load(b, nil, examplePkg(b, "team-section"))[0]
	ctx := context.Background()
	e.mu.Lock()
	defer e.mu.Unlock()
	b.Run("fresh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			inst, err := e.startInstance(ctx, nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			inst.close()
		}
	})
	path := e.snapshotPath()
	if _, err := loadSnapshot(path, uint64(e.limits.MemoryMiB)<<20); err != nil {
		b.Fatalf("no snapshot: %v", err)
	}
	b.Run("restored", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := loadSnapshot(path, uint64(e.limits.MemoryMiB)<<20)
			if err != nil {
				b.Fatal(err)
			}
			inst, err := e.startInstance(ctx, s, nil)
			if err != nil {
				b.Fatal(err)
			}
			inst.close()
		}
	})
}

// Writing a snapshot removes those written over a week before (left by
// modules since rebuilt) and keeps the rest.
func TestSnapshotPrunesStale(t *testing.T) {
	dir := t.TempDir()
	old, recent := filepath.Join(dir, "old"), filepath.Join(dir, "recent")
	for _, p := range []string{old, recent} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	if err := os.Chtimes(old, now, now.Add(-staleCacheAge-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := writeSnapshot(filepath.Join(dir, "new"), make([]byte, 65536), snapshotState{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("stale snapshot kept: %v", err)
	}
	for _, p := range []string{recent, filepath.Join(dir, "new")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
}
