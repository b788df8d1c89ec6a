package host

import "testing"

// A Go guest that panics without recovering prints a traceback on stderr;
// the report names the guest's own frame, not the runtime's.
func TestPanicSite(t *testing.T) {
	cases := []struct{ name, stderr, want string }{
		{"go traceback",
			"panic: boom\n\ngoroutine 1 [running]:\npanic({0x1, 0x2})\n\t/usr/lib/go/src/runtime/panic.go:860 +0x1b\n" +
				"main.beforeAgentStart()\n\t/src/ext/main.go:173 +0x2\nmain.run(...)\n\t/src/ext/main.go:40\n",
			"main.go:173 in main.beforeAgentStart"},
		{"runtime helper frames skipped",
			"panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\nruntime.mapassign_faststr(0x0)\n\t/go/src/internal/runtime/maps/x.go:9 +0x4\n" +
				"example.com/ext/pkg.(*T).Set(...)\n\t/w/pkg/t.go:12\n",
			"t.go:12 in example.com/ext/pkg.(*T).Set"},
		{"no traceback", "panic: boom\n", ""},
		{"not go", "thread 'main' panicked at src/lib.rs:3:5\n", ""},
		{"header without frames", "goroutine 1 [running]:\n", ""},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := panicSite(c.stderr); got != c.want {
				t.Errorf("panicSite = %q, want %q", got, c.want)
			}
		})
	}
}

// A guest's stderr is kept from its start: a Go panic's message and its
// innermost frames come first.
func TestHeadBufferKeepsTheStart(t *testing.T) {
	b := &headBuffer{max: 4}
	b.Write([]byte("ab"))
	b.Write([]byte("cdef"))
	if got := b.String(); got != "abcd" {
		t.Errorf("kept %q, want abcd", got)
	}
}
