//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/piwasm/pi/internal/scripted"
)

// BenchmarkPrintHelloMemory is bench/side.sh's `hello` case for pi alone:
// `pi -p hello` (bin/pi, built without the UI) against a scripted loopback model, timed by bench/timeit
// after one warm-up run. It reports the median peak RSS of the runs
// (ru_maxrss, which counts the pages of the binary that start-up touches).
// RSS does not depend on the machine's load, so the figure holds on a
// busy machine:
//
//	go test -run '^$' -bench PrintHelloMemory -benchtime 10x ./cmd/pi
//
// The runs go through timeit, a small process, because a child's ru_maxrss
// starts from the resident size of the process that spawned it (Go spawns
// with vfork, and exec carries the old address space's peak over), and the
// test binary is bigger than pi.
func BenchmarkPrintHelloMemory(b *testing.B) {
	dir := b.TempDir()
	built := filepath.Join(dir, "pi.built")
	// pi as make build builds bin/pi, the program users run for pi -p:
	// without the terminal UI (tag noui; see RATIONALE.md, "Two binaries").
	for _, p := range [][3]string{{built, ".", "noui"}, {filepath.Join(dir, "timeit"), "../../bench/timeit", ""}} {
		cmd := goCmd(".", "build", "-tags", p[2], "-o", p[0], p[1])
		cmd.Env = append(cmd.Env, "CGO_ENABLED=0") // as make build builds pi
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("build %s: %v\n%s", p[1], err, out)
		}
	}
	// Copied as cp would (copy_file_range, which io.Copy between files
	// uses too): how a file was written decides how the page cache holds
	// it, and with it how much of the binary each page fault maps in. One
	// 38 MB write of the same bytes measured 31 MiB here against 20 with
	// the copy.
	if err := copyExe(built, filepath.Join(dir, "pi")); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(&scripted.Server{Fallback: "Hello from the scripted model."})
	b.Cleanup(srv.Close)
	work := b.TempDir()
	agent, home, proj := filepath.Join(work, "agent"), filepath.Join(work, "home"), filepath.Join(work, "proj")
	writeFiles(b, agent, map[string]string{"models.json": `{"providers":{"mock":{"baseUrl":"` + srv.URL + `/v1","api":"openai-completions","apiKey":"k","models":[{"id":"mock-1"}]}}}`})
	for _, d := range []string{home, proj} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	// run runs pi -p hello under timeit and returns its peak RSS.
	run := func(warmup int) int64 {
		cmd := exec.Command(filepath.Join(dir, "timeit"), "-json", "-n", "1", "-warmup", strconv.Itoa(warmup), "--",
			filepath.Join(dir, "pi"), "-p", "--model", "mock/mock-1", "--no-extensions", "hello")
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "PI_CODING_AGENT_DIR="+agent, "HOME="+home)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("timeit pi -p hello: %v\n%s", err, out)
		}
		var r struct {
			MaxRSSKB int64 `json:"maxrss_kb"`
		}
		if err := json.Unmarshal(out, &r); err != nil || r.MaxRSSKB == 0 {
			b.Fatalf("timeit's answer %q: %v", out, err)
		}
		return r.MaxRSSKB
	}
	run(1) // the page cache holds the copy from here on, as in a user's second run
	var rss []int64
	for b.Loop() {
		rss = append(rss, run(0))
	}
	slices.Sort(rss)
	b.ReportMetric(float64(rss[len(rss)/2]), "peak-RSS-KiB")
}

// copyExe copies the executable src to dst the way cp does.
func copyExe(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", src, err)
	}
	return out.Close()
}
