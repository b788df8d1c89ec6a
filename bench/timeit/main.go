// Command timeit runs a command N times and reports its wall time (median,
// p90, min, max) and peak resident memory. It is the fallback timer of
// bench/e2e.sh when hyperfine is not installed, and its memory figure is
// used either way.
//
// Usage:
//
//	timeit [-n 15] [-warmup 1] [-prepare 'shell command'] [-json] -- COMMAND [ARGS...]
//
// The command's stdout is discarded; its stderr is kept and shown if a run
// fails. Every run must exit 0: the first failure stops timeit with exit
// status 1 and the failing run's stderr, so a caller can tell "not
// available" from a slow result. The plain output is one line of
// key=value pairs:
//
//	runs=15 median_ms=12.3 p90_ms=14.0 min_ms=11.8 max_ms=15.2 mean_ms=12.6 maxrss_kb=23456
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Result is what timeit reports.
type Result struct {
	Runs     int     `json:"runs"`
	MedianMS float64 `json:"median_ms"`
	P90MS    float64 `json:"p90_ms"`
	MinMS    float64 `json:"min_ms"`
	MaxMS    float64 `json:"max_ms"`
	MeanMS   float64 `json:"mean_ms"`
	MaxRSSKB int64   `json:"maxrss_kb"` // largest peak RSS over the runs; 0 when unknown
}

func main() {
	n := flag.Int("n", 15, "timed runs")
	warmup := flag.Int("warmup", 1, "untimed runs before the timed ones")
	prepare := flag.String("prepare", "", "shell command run (untimed) before every run, warm-ups included")
	asJSON := flag.Bool("json", false, "print the result as JSON")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: timeit [-n N] [-warmup N] [-prepare CMD] [-json] -- COMMAND [ARGS...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 || *n < 1 || *warmup < 0 {
		flag.Usage()
		os.Exit(2)
	}
	res, err := Measure(flag.Args(), *n, *warmup, *prepare)
	if err != nil {
		fmt.Fprintf(os.Stderr, "timeit: %v\n", err)
		os.Exit(1)
	}
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(res)
		return
	}
	fmt.Println(res)
}

func (r Result) String() string {
	return fmt.Sprintf("runs=%d median_ms=%.1f p90_ms=%.1f min_ms=%.1f max_ms=%.1f mean_ms=%.1f maxrss_kb=%d",
		r.Runs, r.MedianMS, r.P90MS, r.MinMS, r.MaxMS, r.MeanMS, r.MaxRSSKB)
}

// Measure runs argv warmup+n times (prepare, if set, before each run) and
// summarises the n timed runs.
func Measure(argv []string, n, warmup int, prepare string) (Result, error) {
	var walls []time.Duration
	var rss int64
	for i := range warmup + n {
		if prepare != "" {
			if out, err := exec.Command("sh", "-c", prepare).CombinedOutput(); err != nil {
				return Result{}, fmt.Errorf("prepare %q: %v\n%s", prepare, err, tail(out))
			}
		}
		wall, maxrss, err := runOnce(argv)
		if err != nil {
			return Result{}, err
		}
		if i >= warmup {
			walls = append(walls, wall)
			rss = max(rss, maxrss)
		}
	}
	return Summarise(walls, rss), nil
}

// runOnce runs argv once and returns its wall time and peak RSS in KiB.
func runOnce(argv []string) (time.Duration, int64, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stdin = nil
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return 0, 0, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, tail(stderr.Bytes()))
		}
		return 0, 0, err
	}
	return wall, peakRSSKiB(cmd.ProcessState), nil
}

// Summarise computes the order statistics of walls. Percentiles use the
// nearest-rank method; the median of an even count is the mean of the two
// middle values.
func Summarise(walls []time.Duration, maxrss int64) Result {
	r := Result{Runs: len(walls), MaxRSSKB: maxrss}
	if len(walls) == 0 {
		return r
	}
	ms := make([]float64, len(walls))
	var sum float64
	for i, w := range walls {
		ms[i] = float64(w) / float64(time.Millisecond)
		sum += ms[i]
	}
	slices.Sort(ms)
	k := len(ms)
	if k%2 == 1 {
		r.MedianMS = ms[k/2]
	} else {
		r.MedianMS = (ms[k/2-1] + ms[k/2]) / 2
	}
	r.P90MS = ms[int(math.Ceil(0.9*float64(k)))-1]
	r.MinMS, r.MaxMS = ms[0], ms[k-1]
	r.MeanMS = sum / float64(k)
	return r
}

// tail keeps the last 2 KiB of b, where an error message usually is.
func tail(b []byte) string {
	const keep = 2048
	if len(b) > keep {
		b = append([]byte("…"), b[len(b)-keep:]...)
	}
	return strings.TrimSpace(string(b))
}
