//go:build !windows

package builtin

import (
	"errors"
	"io"
	"syscall"
	"testing"
)

// A descriptor with no data yet (a stream such as /proc/kmsg, here a
// pipe) ends the read with errWouldBlock instead of waiting for ever.
func TestRawFileDoesNotWait(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(p[1])
	if err := syscall.SetNonblock(p[0], true); err != nil {
		t.Fatal(err)
	}
	syscall.Write(p[1], []byte("abc"))
	f := &rawFile{fd: p[0], path: "stream"}
	defer f.Close()
	b := make([]byte, 10)
	if n, err := f.Read(b); n != 3 || err != nil {
		t.Fatalf("read %d %v", n, err)
	}
	if _, err := io.ReadAll(f); !errors.Is(err, errWouldBlock) {
		t.Fatalf("second read: %v, want errWouldBlock", err)
	}
}
