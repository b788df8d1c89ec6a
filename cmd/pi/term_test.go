package main

import (
	"os"
	"testing"
)

// A character device that is not a terminal must not count as one: pi would
// otherwise wait for an answer on /dev/null (the old fallback outside Linux
// said yes to any character device).
func TestIsTerminalRejectsDevNull(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Skipf("no %s: %v", os.DevNull, err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("isTerminal(%s) = true", os.DevNull)
	}
}

func TestIsTerminalRejectsRegularFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("isTerminal(regular file) = true")
	}
}
