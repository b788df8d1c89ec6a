package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/piwasm/pi/abi"
)

// Review: readGranted opens the resolved path with os.Open before checking
// that it is a regular file. Opening a named pipe (FIFO) for reading blocks
// until a writer appears, and host functions are not interrupted by the
// call's deadline (wazero only checks it in guest code), so a project that
// holds a FIFO under a granted name hangs pi: the guest call never returns
// and the timeout/abort policy never applies. The memo layer reaches the
// same code through FileRecord on every lookup, before any guest runs.
func TestReviewReadFileFIFODoesNotHang(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	fifo := filepath.Join(root, "allowed.txt")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	rt := secReviewRuntime(t, root)
	m := strings.Replace(hostileManifest, "mode: ok", "mode: readfile\n  path: allowed.txt", 1)
	m = strings.Replace(m, "timeoutMs: 5000", "timeoutMs: 200", 1)
	e := secReviewLoad(t, rt, Grants{"hostile": {Files: []string{"allowed.txt"}}}, pkg(t, "hostile", m))
	// Instantiate first so that the wait below measures only the call.
	if err := e.secReviewWarm(ctx); err != nil {
		t.Fatal(err)
	}

	done := make(chan error, 1)
	go func() {
		_, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("reading a FIFO succeeded")
		}
	case <-time.After(3 * time.Second):
		// Unblock the host function (a writer appears and closes at once)
		// so that the extension can be closed, then report.
		secReviewUnblockFIFO(fifo)
		<-done
		t.Fatal("pi_read_file on a FIFO in the project blocked the call far past its 200 ms deadline")
	}
}

// secReviewUnblockFIFO opens fifo for writing and closes it, which releases a reader
// blocked in open(2).
func secReviewUnblockFIFO(fifo string) {
	for i := 0; i < 100; i++ {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// secReviewWarm compiles and instantiates e.
func (e *Extension) secReviewWarm(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.readyLocked(ctx)
}

// Same thing without a guest: FileRecord (used by the memo layer to check a
// stored result's files) blocks on a FIFO.
func TestReviewFileRecordFIFODoesNotHang(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "notes.txt")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan int64, 1)
	go func() {
		_, code := readGranted(root, []string{"*.txt"}, "notes.txt", 1<<20)
		done <- code
	}()
	select {
	case code := <-done:
		if code >= 0 {
			t.Fatalf("FIFO read as a file: %d", code)
		}
	case <-time.After(2 * time.Second):
		secReviewUnblockFIFO(fifo)
		<-done
		t.Fatal("readGranted blocked on a FIFO")
	}
}

// Review: MatchGlob backtracks over every split for each "**" element, so
// the cost grows as (path elements)^(number of "**"). The glob comes from a
// manifest the user granted and the path from the guest (up to 4096 bytes,
// the file need not exist: readGranted matches the cleaned path before it
// looks at the disk), and the matching runs in a host function, where the
// call's deadline does not apply. Measured: 4 "**" and 400 elements take
// ~23 s; a guest can send ~2000 elements (hours). The test uses 200
// elements (~1.5 s) and asks that one match stays under the 100 ms default
// call deadline. On a loaded machine one run may be descheduled for longer
// than that, so it is tried up to five times and the fastest counts: the
// exponential matcher never gets under the bound.
func TestReviewGlobMatchingIsBounded(t *testing.T) {
	glob := "**/**/**/**/x.md"
	p := strings.TrimSuffix(strings.Repeat("a/", 200), "/") // 200 elements, 399 bytes
	dir := t.TempDir()
	fastest := time.Duration(1<<63 - 1)
	for range 5 {
		start := time.Now()
		_, code := readGranted(dir, []string{glob}, p, 1<<20)
		fastest = min(fastest, time.Since(start))
		if fastest <= 100*time.Millisecond {
			return
		}
		t.Logf("one check took %v (code %d)", time.Since(start), code)
	}
	t.Fatalf("one pi_read_file path check (%d bytes, glob %q) took at best %v in the host, past the default 100 ms call deadline", len(p), glob, fastest)
}

// Hole: pi_read_file checked the resolved path and then opened it again by
// name, so swapping a granted directory for a symbolic link between the two
// read a file outside the project. A goroutine swaps the directory while
// the host reads; no read may return the outside file.
func TestReadGrantedSwapRace(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "project")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "dir"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "dir", "a.txt"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "a.txt"), []byte("OUTSIDE"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, parked := filepath.Join(root, "dir"), filepath.Join(root, "parked")
	stop := make(chan struct{})
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// dir -> parked, symlink dir -> outside, then back.
			if os.Rename(dir, parked) != nil || os.Symlink(outside, dir) != nil {
				continue
			}
			os.Remove(dir)
			os.Rename(parked, dir)
		}
	}()
	// Two seconds of reads, or 20,000; on a loaded machine the swapper may
	// keep the directory away from every read in that time, so the reads
	// go on (up to a minute) until one has found the granted file.
	var leaked, inside int
	start := time.Now()
	for i := 0; ; i++ {
		if i >= 20000 || time.Since(start) > 2*time.Second {
			if inside > 0 || time.Since(start) > time.Minute {
				break
			}
		}
		b, code := readGranted(root, []string{"dir/*"}, "dir/a.txt", 1<<10)
		switch {
		case code >= 0 && string(b) == "OUTSIDE":
			leaked++
		case code >= 0:
			inside++
		}
	}
	close(stop)
	<-swapped
	if leaked > 0 {
		t.Fatalf("read the file outside the project %d times (inside %d)", leaked, inside)
	}
	if inside == 0 {
		t.Fatal("the granted file was never read: the test checks nothing")
	}
	t.Logf("%d reads of the granted file, none outside", inside)
}
