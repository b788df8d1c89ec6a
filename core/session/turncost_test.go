package session

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/internal/proccpu"
)

// turnWindows are the turns whose cost is measured: ten turns from each
// start, so one slow turn does not decide a figure.
var turnWindows = []int{10, 100, 1000}

const windowTurns = 10

// turnCost is the harness's average cost of one turn in a window: from one
// model request to the next (the reply streamed and decoded, a read and an
// edit run and recorded, the session file appended, the next request built
// and sent).
type turnCost struct {
	wall           time.Duration
	cpu            time.Duration // process CPU time, 0 where not measured
	objects, bytes uint64        // allocated per turn
	listBytes      uint64        // of which the body's list of message encodings (24 bytes a message)
}

// scriptedSession runs one prompt against a loopback model that answers
// request k with a read and an edit of f<k>.txt (so no read shares a reply
// with an edit of the same file) until the last window has been measured,
// then with a closing text. It returns the cost per turn of each window.
// The server reads each body into io.Discard and writes its reply from
// a template, so its own share is the same at every turn.
func scriptedSession(tb testing.TB) map[int]turnCost {
	tb.Helper()
	last := turnWindows[len(turnWindows)-1] + windowTurns
	proj := tb.TempDir()
	line := "first line of the file\n" + strings.Repeat("an ordinary line of text\n", 19)
	for k := 1; k <= last; k++ {
		writeFile(tb, filepath.Join(proj, fmt.Sprintf("f%d.txt", k)), line)
	}
	out := map[int]turnCost{}
	var (
		k         int
		start     time.Time
		startCPU  time.Duration
		ms        runtime.MemStats
		startObjs uint64
		startB    uint64
		list      uint64
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		k++
		for _, w := range turnWindows {
			switch k {
			case w:
				runtime.ReadMemStats(&ms)
				start, startCPU, startObjs, startB, list = time.Now(), proccpu.Used(), ms.Mallocs, ms.TotalAlloc, 0
			case w + windowTurns:
				wall, cpu := time.Since(start), proccpu.Used()-startCPU
				runtime.ReadMemStats(&ms)
				out[w] = turnCost{wall: wall / windowTurns, cpu: cpu / windowTurns,
					objects: (ms.Mallocs - startObjs) / windowTurns, bytes: (ms.TotalAlloc - startB) / windowTurns, listBytes: list / windowTurns}
			}
		}
		// The history holds about three messages a turn: the reply and two results.
		list += uint64(24 * (3*k + 3))
		w.Header().Set("Content-Type", "text/event-stream")
		if k > last {
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"All files are fixed.\"}}]}\n\n")
			fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
			return
		}
		f := fmt.Sprintf("f%d.txt", k)
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Turn %d: reading and fixing %s.\"}}]}\n\n", k, f)
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"r%d\",\"function\":{\"name\":\"read\",\"arguments\":%q}}]}}]}\n\n",
			k, `{"path":"`+f+`"}`)
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"e%d\",\"function\":{\"name\":\"edit\",\"arguments\":%q}}]}}]}\n\n",
			k, `{"path":"`+f+`","edits":[{"oldText":"first line","newText":"FIRST LINE"}]}`)
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	r := newRunner(tb, proj, filepath.Join(tb.TempDir(), "s.jsonl"), openaiRoute(srv.URL), nil)
	if _, err := r.Turn(context.Background(), Input{Text: "Fix the first line of every file."}, false); err != nil {
		tb.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(proj, fmt.Sprintf("f%d.txt", last))); err != nil || !strings.HasPrefix(string(got), "FIRST LINE") {
		tb.Fatalf("the last turn's edit did not happen: %q %v", got, err)
	}
	if len(out) != len(turnWindows) {
		tb.Fatalf("measured %d windows of %d", len(out), len(turnWindows))
	}
	return out
}

func inWindow(k int) bool {
	for _, w := range turnWindows {
		if k >= w && k < w+windowTurns {
			return true
		}
	}
	return false
}

// A turn allocates as much at turn 1,000 as at turn 10: nothing per turn
// converts, encodes or copies the whole history again. The one thing that
// grows is the body's list of references to the messages' encodings (24
// bytes a message), left out of the byte comparison.
func TestTurnCostFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("a 1,010-turn session")
	}
	costs := scriptedSession(t)
	base := costs[turnWindows[0]]
	for _, w := range turnWindows {
		c := costs[w]
		t.Logf("turn %4d: %5d objects, %7d bytes (%6d of them the list of encoded messages), %v wall, %v CPU", w, c.objects, c.bytes, c.listBytes, c.wall, c.cpu)
	}
	// And a turn is cheap to begin with: 710 objects and 388 KB at turn 10
	// before a read stopped taking a 256 KiB block, the stream's chunks
	// were decoded without reflection, an entry was encoded once and a
	// tool's schema decoded once (534 objects, 103 KB after).
	if base.objects > 600 || base.bytes > 160<<10 {
		t.Errorf("turn %d allocates %d objects and %d bytes (at most 600 and 160 KiB)", turnWindows[0], base.objects, base.bytes)
	}
	for _, w := range turnWindows[1:] {
		c := costs[w]
		if float64(c.objects) > 1.2*float64(base.objects) {
			t.Errorf("turn %d allocates %d objects, turn %d %d: more than 20%% more", w, c.objects, turnWindows[0], base.objects)
		}
		if rest, b := c.bytes-c.listBytes, base.bytes-base.listBytes; float64(rest) > 1.2*float64(b) {
			t.Errorf("turn %d allocates %d bytes besides the list of messages, turn %d %d: more than 20%% more", w, rest, turnWindows[0], b)
		}
	}
}

// BenchmarkTurnCost reports the cost of a turn at turns 10, 100 and 1,000
// of one scripted session: wall and CPU time, objects and bytes allocated.
func BenchmarkTurnCost(b *testing.B) {
	sum := map[int]turnCost{}
	for b.Loop() {
		for w, c := range scriptedSession(b) {
			s := sum[w]
			s.wall += c.wall
			s.cpu += c.cpu
			s.objects += c.objects
			s.bytes += c.bytes
			s.listBytes += c.listBytes
			sum[w] = s
		}
	}
	n := uint64(b.N)
	for _, w := range turnWindows {
		c := sum[w]
		b.ReportMetric(float64(c.wall.Microseconds())/float64(n), fmt.Sprintf("µs/turn@%d", w))
		b.ReportMetric(float64(c.cpu.Microseconds())/float64(n), fmt.Sprintf("cpu-µs/turn@%d", w))
		b.ReportMetric(float64(c.objects/n), fmt.Sprintf("allocs/turn@%d", w))
		b.ReportMetric(float64(c.bytes/n), fmt.Sprintf("B/turn@%d", w))
	}
}
