package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// shared is one engine for the package's tests: compiling it is the slow part.
var shared struct {
	once sync.Once
	e    *Engine
	err  error
}

func newVM(t *testing.T, host Host) *VM {
	t.Helper()
	ctx := context.Background()
	shared.once.Do(func() { shared.e, shared.err = New(ctx, "") })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	vm, err := shared.e.NewVM(ctx, Config{Host: host, HeapBytes: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return vm
}

func TestCallAndHost(t *testing.T) {
	ctx := context.Background()
	vm := newVM(t, func(ctx context.Context, op string, p []byte) ([]byte, error) {
		if op == "fail" {
			return nil, errors.New("refused: " + string(p))
		}
		return []byte(strings.ToUpper(op) + ":" + string(p)), nil
	})
	if err := vm.Eval(ctx, `
		globalThis.echo = (s) => __pi_host("say", s) + "!";
		globalThis.later = async (s) => { await null; return "late " + s; };
		globalThis.caught = (s) => { try { __pi_host("fail", s) } catch (e) { return "caught " + e.message } };
	`, "t.js", time.Second); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ fn, arg, want string }{
		{"echo", "héllo", "SAY:héllo!"},
		{"later", "x", "late x"},
		{"caught", "y", "caught refused: y"},
	} {
		got, err := vm.Call(ctx, c.fn, []byte(c.arg), time.Second, "")
		if err != nil || got != c.want {
			t.Errorf("%s(%q) = %q, %v; want %q", c.fn, c.arg, got, err, c.want)
		}
	}
}

func TestLimits(t *testing.T) {
	ctx := context.Background()
	vm := newVM(t, nil)
	if err := vm.Eval(ctx, `globalThis.spin = () => { for(;;){} }; globalThis.grow = () => { const a = []; for(;;) a.push("x".repeat(1000)+a.length) }; globalThis.ok = () => "ok";
		globalThis.throws = () => { throw new TypeError("bad thing") }`, "t.js", time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.Call(ctx, "spin", nil, 100*time.Millisecond, ""); !errors.Is(err, ErrTimeout) {
		t.Errorf("spin: %v, want timeout", err)
	}
	if got, err := vm.Call(ctx, "ok", nil, time.Second, ""); err != nil || got != "ok" {
		t.Errorf("after a timeout: %q, %v", got, err)
	}
	if _, err := vm.Call(ctx, "grow", nil, 10*time.Second, ""); !errors.Is(err, ErrMemory) {
		t.Errorf("grow: %v, want out of memory", err)
	}
	if _, err := vm.Call(ctx, "throws", nil, time.Second, ""); err == nil || !strings.Contains(err.Error(), "TypeError: bad thing") {
		t.Errorf("throws: %v", err)
	}
}

func TestEmbeddedHash(t *testing.T) {
	sum := sha256.Sum256(wasmBytes)
	if got := hex.EncodeToString(sum[:]); got != SHA256 {
		t.Fatalf("quickjs.wasm has SHA-256 %s, SOURCE.md and engine.SHA256 say %s", got, SHA256)
	}
}
