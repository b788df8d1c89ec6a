package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetratelabs/wazero"
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
// never run from the entry of its earlier version, and a cache hit runs the
// cached module's own code.
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

// A damaged entry (cut short, as by a full disk) costs one compilation:
// wazero fails on it, so pi empties the cache and compiles the module again,
// and the next run finds a good entry. Without that every later load of the
// module failed.
func TestCompileCacheDamagedEntryRecompiles(t *testing.T) {
	ctx := context.Background()
	agent := t.TempDir()
	dir := examplePkg(t, "greeter")
	loadIn := func(what string) {
		t.Helper()
		rt, err := NewRuntime(ctx, Config{AgentDir: agent})
		if err != nil {
			t.Fatal(err)
		}
		defer rt.Close(ctx)
		exts, diags := rt.Load(ctx, []string{dir}, nil)
		if len(exts) != 1 || len(diags) != 0 {
			t.Fatalf("%s: loaded %d, diagnostics %v", what, len(exts), diags)
		}
	}
	loadIn("first load")
	entries := cacheEntries(t, filepath.Join(agent, "cache", "wazero"))
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
		loadIn(fmt.Sprintf("cut to %d bytes", size))
		if st2, err := os.Stat(entries[0]); err != nil || st2.Size() != st.Size() {
			t.Fatalf("cut to %d bytes: entry not rewritten (%v)", size, err)
		}
	}
}
