package host

import (
	"errors"
	"strings"
	"testing"
)

// trap runs f and returns what it panicked with (a host function's panic
// is a trap for the guest), or nil.
func trap(f func()) (r any) {
	defer func() { r = recover() }()
	f()
	return nil
}

func TestKernelMemory(t *testing.T) {
	k := newKernel(1 << 10)
	a := k.alloc(10)
	b := k.alloc(3)
	if a == 0 || b <= a || b%8 != 0 || k.blocks[a] != 10 || k.blocks[b] != 3 {
		t.Fatalf("blocks at %d, %d: %v", a, b, k.blocks)
	}
	copy(k.span(a, 10), "0123456789")
	if got, ok := k.block(a); !ok || string(got) != "0123456789" {
		t.Fatalf("block %q %v", got, ok)
	}
	// Freeing the last block gives its space back; freeing another only
	// forgets it.
	k.free(b)
	if c := k.alloc(3); c != b {
		t.Fatalf("space of the last block not reused: %d, want %d", c, b)
	}
	k.free(a)
	if _, ok := k.block(a); ok || k.blocks[a] != 0 {
		t.Fatal("freed block still known")
	}
	// Out of range reads and writes trap; so does a block past the limit,
	// reported as a memory failure.
	for name, f := range map[string]func(){
		"read past the end": func() { k.span(uint64(len(k.mem)), 1) },
		"huge length":       func() { k.span(8, 1<<40) },
		"wrapping offset":   func() { k.span(^uint64(0), 2) },
	} {
		if trap(f) == nil {
			t.Errorf("%s: no trap", name)
		}
	}
	r := trap(func() { k.alloc(2 << 10) })
	if err, ok := r.(error); !ok || !errors.Is(err, errKernelMemory) || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("over the limit: %v", r)
	}
	// A call starts from empty memory and sees its own input.
	k.reset([]byte("event"))
	if len(k.mem) != kernelBase || len(k.blocks) != 0 || string(k.input) != "event" || k.output() != nil {
		t.Fatalf("after reset: %d bytes, %d blocks", len(k.mem), len(k.blocks))
	}
}

func TestKernelOutputAndError(t *testing.T) {
	k := newKernel(1 << 20)
	k.reset(nil)
	off := k.write([]byte(`{"result":{}}`))
	k.outOff, k.outLen = off, 13
	if string(k.output()) != `{"result":{}}` {
		t.Fatalf("output %q", k.output())
	}
	// An output that no longer lies in memory is no output, not a crash.
	k.free(off)
	if k.output() != nil {
		t.Fatalf("output after free: %q", k.output())
	}
	k.errOff = k.write([]byte("bad config"))
	if k.errorText() != "bad config" {
		t.Fatalf("error %q", k.errorText())
	}
}

func TestKernelVars(t *testing.T) {
	k := newKernel(1 << 20)
	set := func(name, val string) any {
		return trap(func() {
			n := k.write([]byte(name))
			var v uint64
			if val != "" {
				v = k.write([]byte(val))
			}
			k.setVar(n, v)
		})
	}
	if r := set("a", "one"); r != nil || string(k.vars["a"]) != "one" {
		t.Fatalf("set: %v %q", r, k.vars["a"])
	}
	if r := set("a", "two"); r != nil || string(k.vars["a"]) != "two" || k.varBytes != 4 {
		t.Fatalf("replace: %v %q %d", r, k.vars["a"], k.varBytes)
	}
	if r := set("a", ""); r != nil || len(k.vars) != 0 || k.varBytes != 0 {
		t.Fatalf("remove: %v %v %d", r, k.vars, k.varBytes)
	}
	if r := set("big", strings.Repeat("x", maxVarBytes)); r == nil {
		t.Fatal("variables over the cap accepted")
	}
	k.reset(nil)
	if set("kept", "v") != nil {
		t.Fatal()
	}
	k.reset(nil)
	if string(k.vars["kept"]) != "v" {
		t.Fatal("variables must survive a call")
	}
}
