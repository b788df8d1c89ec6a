package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSummarise(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	r := Summarise(ms(50, 10, 30, 20, 40), 99)
	if r.Runs != 5 || r.MedianMS != 30 || r.P90MS != 50 || r.MinMS != 10 || r.MaxMS != 50 || r.MeanMS != 30 || r.MaxRSSKB != 99 {
		t.Fatalf("odd count: %+v", r)
	}
	r = Summarise(ms(4, 1, 3, 2, 5, 6, 7, 8, 9, 10), 0)
	if r.MedianMS != 5.5 || r.P90MS != 9 {
		t.Fatalf("even count: %+v", r)
	}
	if r := Summarise(nil, 0); r.Runs != 0 {
		t.Fatalf("empty: %+v", r)
	}
}

func TestMeasure(t *testing.T) {
	r, err := Measure([]string{"sh", "-c", "echo out; echo err >&2"}, 3, 1, "true")
	if err != nil {
		t.Fatal(err)
	}
	if r.Runs != 3 || r.MedianMS <= 0 || r.MaxRSSKB <= 0 {
		t.Fatalf("%+v", r)
	}
	if !strings.HasPrefix(r.String(), "runs=3 median_ms=") {
		t.Fatalf("String() = %q", r.String())
	}
}

func TestMeasureFailure(t *testing.T) {
	_, err := Measure([]string{"sh", "-c", "echo boom >&2; exit 3"}, 3, 0, "")
	if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("err = %v", err)
	}
	_, err = Measure([]string{"true"}, 1, 0, "exit 1")
	if err == nil || !strings.Contains(err.Error(), "prepare") {
		t.Fatalf("prepare failure: err = %v", err)
	}
}

// Several commands run in turn, A B A B, warm-ups included, each with its
// own figures.
func TestMeasureAlternating(t *testing.T) {
	log := filepath.Join(t.TempDir(), "order")
	res, err := MeasureAlternating([][]string{{"true"}, {"sh", "-c", "exit 0"}}, 3, 1, "printf %s $TIMEIT_INDEX >> "+log)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(log)
	if string(got) != "01010101" {
		t.Errorf("run order %q, want 01010101", got)
	}
	if len(res.Results) != 2 || res.Results[0].Runs != 3 || res.Results[1].Runs != 3 {
		t.Fatalf("results %+v", res.Results)
	}
	if c := splitCommands([]string{"a", "b", ":::", "c"}); len(c) != 2 || c[0][1] != "b" || c[1][0] != "c" {
		t.Errorf("split %q", c)
	}
}
