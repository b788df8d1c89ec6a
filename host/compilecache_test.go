package host

import (
	"context"
	"crypto/sha256"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"
)

// constModule is a module exporting f() -> i32 returning v (0..63).
func constModule(v byte) []byte {
	return []byte{
		0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
		0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, // type: () -> i32
		0x03, 0x02, 0x01, 0x00, // one function of type 0
		0x07, 0x05, 0x01, 0x01, 'f', 0x00, 0x00, // export "f"
		0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, v, 0x0b, // i32.const v; end
	}
}

// callF compiles wasm in a new runtime on the compilation cache in dir (a
// new cache object, so only the files are shared) and returns f().
func callF(t *testing.T, dir string, wasm []byte) uint64 {
	t.Helper()
	return callFCtx(t, context.Background(), dir, wasm)
}

func callFCtx(t *testing.T, ctx context.Context, dir string, wasm []byte) uint64 {
	t.Helper()
	cache, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close(ctx)
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
	defer rt.Close(ctx)
	mod, err := rt.Instantiate(ctx, wasm)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mod.ExportedFunction("f").Call(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return res[0]
}

// cacheEntries lists the files of the compilation cache under dir.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// A module changed on disk has other bytes, so another cache key: it is
// never run from the entry of its earlier version, and a cache hit (which
// skips the function bodies) runs the cached module's own code.
func TestCompileCacheKeyedByContent(t *testing.T) {
	dir := t.TempDir()
	if got := callF(t, dir, constModule(1)); got != 1 {
		t.Fatalf("first compile: f() = %d", got)
	}
	if got := callF(t, dir, constModule(2)); got != 2 {
		t.Fatalf("changed module: f() = %d, want 2 (served a stale entry?)", got)
	}
	if n := len(cacheEntries(t, dir)); n != 2 {
		t.Fatalf("%d cache entries, want one per module", n)
	}
	if got := callF(t, dir, constModule(1)); got != 1 {
		t.Fatalf("cache hit: f() = %d", got)
	}
}

// pi hands wazero the SHA-256 it checked the module against
// (experimental.WithModuleSHA256) instead of letting it hash the module
// again. The key derived from a given sum is the key wazero derives
// itself, so either way finds the other's entry; and the given sum is what
// the key is made of (a different one is another entry).
func TestCompileCacheKeyFromGivenSHA256(t *testing.T) {
	dir := t.TempDir()
	wasm := constModule(3)
	withSum := experimental.WithModuleSHA256(context.Background(), sha256.Sum256(wasm))
	if got := callFCtx(t, withSum, dir, wasm); got != 3 {
		t.Fatalf("f() = %d", got)
	}
	if got := callF(t, dir, wasm); got != 3 {
		t.Fatalf("f() = %d", got)
	}
	if n := len(cacheEntries(t, dir)); n != 1 {
		t.Fatalf("%d cache entries, want one: a given sum and wazero's own must give one key", n)
	}
	other := experimental.WithModuleSHA256(context.Background(), sha256.Sum256(constModule(4)))
	callFCtx(t, other, dir, wasm)
	if n := len(cacheEntries(t, dir)); n != 2 {
		t.Fatalf("%d cache entries, want two: the given sum is not what the key is made of", n)
	}
}

// A damaged entry (cut short, as by a full disk) is compiled again and
// rewritten; upstream wazero failed every later compilation of the module.
func TestCompileCacheDamagedEntryRecompiles(t *testing.T) {
	dir := t.TempDir()
	wasm := constModule(7)
	callF(t, dir, wasm)
	entries := cacheEntries(t, dir)
	if len(entries) != 1 {
		t.Fatalf("%d cache entries", len(entries))
	}
	st, err := os.Stat(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []int64{st.Size() - 8, 100, 0} {
		if err := os.Truncate(entries[0], size); err != nil {
			t.Fatal(err)
		}
		if got := callF(t, dir, wasm); got != 7 {
			t.Fatalf("cut to %d bytes: f() = %d", size, got)
		}
		if st2, err := os.Stat(entries[0]); err != nil || st2.Size() != st.Size() {
			t.Fatalf("cut to %d bytes: entry not rewritten (%v)", size, err)
		}
	}
}

// On a cache hit the function bodies are neither decoded nor validated
// (third_party/wazero/PI-PATCH.md). Decoding them copies every body, so a
// hit that decoded them would allocate the whole code section on top of
// what a hit needs (the data section, segment headers, names, the function
// table: about the module's size for a Go guest); a hit must stay below
// that plus half the code section.
func TestCompileCacheHitSkipsFunctionBodies(t *testing.T) {
	wasm, err := os.ReadFile(filepath.Join(wasmDir, "team-section.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	code, ok, err := findSection(wasm, 10)
	if err != nil || !ok {
		t.Fatalf("code section: %v", err)
	}
	codeBytes := uint64(len(code.b) - code.i)
	ctx := context.Background()
	dir := filepath.Join(agentDir, "cache", "wazero")
	compile := func() (mallocs, bytes uint64) {
		cache, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer cache.Close(ctx)
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCompilationCache(cache))
		defer rt.Close(ctx)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := rt.CompileModule(ctx, wasm); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
	}
	compile() // fills the cache if no other test did
	n, b := compile()
	if limit := uint64(len(wasm)) + codeBytes/2; b >= limit {
		t.Fatalf("a cache hit allocated %d bytes, limit %d (module %d bytes, code section %d): bodies decoded?", b, limit, len(wasm), codeBytes)
	}
	t.Logf("cache hit: %d allocations, %d bytes; module %d bytes, code section %d", n, b, len(wasm), codeBytes)
}
