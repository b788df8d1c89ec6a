// Command timeit runs a command N times and reports its wall time (median,
// p90, min, max) and peak resident memory. It is the fallback timer of
// bench/e2e.sh when hyperfine is not installed, and its memory figure is
// used either way.
//
// Usage:
//
//	timeit [-n 15] [-warmup 1] [-prepare 'shell command'] [-json] -- COMMAND [ARGS...]
//	timeit [-n 15] ... -- COMMAND [ARGS...] ::: COMMAND [ARGS...] ...
//
// With several commands (separated by :::) the runs alternate, A B A B …,
// and the one-minute load average before and after is reported with them.
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
	// CPUMS is the median of user+system CPU time of a run (the command
	// and the children it waited for); 0 when unknown.
	CPUMS float64 `json:"cpu_ms"`
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
	if cmds := splitCommands(flag.Args()); len(cmds) > 1 {
		res, err := MeasureAlternating(cmds, *n, *warmup, *prepare)
		if err != nil {
			fmt.Fprintf(os.Stderr, "timeit: %v\n", err)
			os.Exit(1)
		}
		if *asJSON {
			json.NewEncoder(os.Stdout).Encode(res)
			return
		}
		fmt.Printf("load_start=%.2f load_end=%.2f\n", res.LoadStart, res.LoadEnd)
		for _, r := range res.Results {
			fmt.Println(r)
		}
		return
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
	return fmt.Sprintf("runs=%d median_ms=%.1f p90_ms=%.1f min_ms=%.1f max_ms=%.1f mean_ms=%.1f maxrss_kb=%d cpu_ms=%.1f",
		r.Runs, r.MedianMS, r.P90MS, r.MinMS, r.MaxMS, r.MeanMS, r.MaxRSSKB, r.CPUMS)
}

// Measure runs argv warmup+n times (prepare, if set, before each run) and
// summarises the n timed runs.
func Measure(argv []string, n, warmup int, prepare string) (Result, error) {
	var walls, cpus []time.Duration
	var rss int64
	for i := range warmup + n {
		if prepare != "" {
			if out, err := exec.Command("sh", "-c", prepare).CombinedOutput(); err != nil {
				return Result{}, fmt.Errorf("prepare %q: %v\n%s", prepare, err, tail(out))
			}
		}
		wall, cpu, maxrss, err := runOnce(argv)
		if err != nil {
			return Result{}, err
		}
		if i >= warmup {
			walls, cpus = append(walls, wall), append(cpus, cpu)
			rss = max(rss, maxrss)
		}
	}
	r := Summarise(walls, rss)
	r.CPUMS = medianMS(cpus)
	return r, nil
}

// Alternating is the result of MeasureAlternating: one Result per command,
// in the order given, and the one-minute load average before and after.
type Alternating struct {
	LoadStart float64  `json:"load_start"`
	LoadEnd   float64  `json:"load_end"`
	Results   []Result `json:"results"`
}

// splitCommands splits COMMAND ::: COMMAND ... into its commands.
func splitCommands(args []string) [][]string {
	var out [][]string
	cur := []string{}
	for _, a := range args {
		if a == ":::" {
			out = append(out, cur)
			cur = []string{}
			continue
		}
		cur = append(cur, a)
	}
	return append(out, cur)
}

// MeasureAlternating runs the commands in turn, A B C A B C …, warmup
// rounds first, so that whatever else the machine does falls on each
// command alike; prepare (with $TIMEIT_INDEX set to the command's index)
// runs before every run.
func MeasureAlternating(cmds [][]string, n, warmup int, prepare string) (Alternating, error) {
	res := Alternating{LoadStart: loadAverage()}
	walls := make([][]time.Duration, len(cmds))
	cpus := make([][]time.Duration, len(cmds))
	rss := make([]int64, len(cmds))
	for round := range warmup + n {
		for c, argv := range cmds {
			if len(argv) == 0 {
				return res, fmt.Errorf("command %d is empty", c+1)
			}
			if prepare != "" {
				cmd := exec.Command("sh", "-c", prepare)
				cmd.Env = append(os.Environ(), fmt.Sprintf("TIMEIT_INDEX=%d", c))
				if out, err := cmd.CombinedOutput(); err != nil {
					return res, fmt.Errorf("prepare %q: %v\n%s", prepare, err, tail(out))
				}
			}
			wall, cpu, maxrss, err := runOnce(argv)
			if err != nil {
				return res, err
			}
			if round >= warmup {
				walls[c], cpus[c] = append(walls[c], wall), append(cpus[c], cpu)
				rss[c] = max(rss[c], maxrss)
			}
		}
	}
	for c := range cmds {
		r := Summarise(walls[c], rss[c])
		r.CPUMS = medianMS(cpus[c])
		res.Results = append(res.Results, r)
	}
	res.LoadEnd = loadAverage()
	return res, nil
}

// loadAverage is the one-minute load average, -1 where unknown.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	var l float64
	if _, err := fmt.Sscan(string(b), &l); err != nil {
		return -1
	}
	return l
}

func medianMS(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	ms := make([]float64, len(ds))
	for i, d := range ds {
		ms[i] = float64(d) / float64(time.Millisecond)
	}
	slices.Sort(ms)
	if k := len(ms); k%2 == 1 {
		return ms[k/2]
	} else {
		return (ms[k/2-1] + ms[k/2]) / 2
	}
}

// runOnce runs argv once and returns its wall time, user+system CPU time
// and peak RSS in KiB.
func runOnce(argv []string) (time.Duration, time.Duration, int64, error) {
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
			return 0, 0, 0, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, tail(stderr.Bytes()))
		}
		return 0, 0, 0, err
	}
	ps := cmd.ProcessState
	return wall, ps.UserTime() + ps.SystemTime(), peakRSSKiB(ps), nil
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
