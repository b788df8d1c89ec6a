package host

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// Caches of other wazero versions are removed once nothing has been added
// to them for a while; everything pi cannot tell is such a cache stays: the
// current version's (however old), a young one (a pi of that version may
// still use it), one holding a file wazero does not write, a link, and a
// plain file.
func TestPruneCompileCaches(t *testing.T) {
	agent := t.TempDir()
	root := filepath.Join(agent, "cache", "wazero")
	key := strings.Repeat("0123456789abcdef", 4)
	old := time.Now().Add(-30 * 24 * time.Hour)
	sfx := "-" + runtime.GOARCH + "-" + runtime.GOOS
	cache := func(name string, files ...string) string {
		t.Helper()
		d := filepath.Join(root, name)
		for _, f := range files {
			p := filepath.Join(d, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("WAZEVO"), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(p, old, old)
			os.Chtimes(filepath.Dir(p), old, old)
		}
		os.MkdirAll(d, 0o700)
		os.Chtimes(d, old, old)
		return d
	}
	current := compileCacheDir(root)
	gone := []string{
		// pi's earlier layout: wazero's own directories right in root.
		cache("wazero-v1.12.0-pi.2"+sfx, key, key[:63]+"1", key+".123456.tmp"),
		cache("wazero-v1.11.0-pi.1" + sfx), // empty
		// this layout: a directory per version, wazero's inside.
		cache("v1.11.0", "wazero-v1.11.0"+sfx+"/"+key),
	}
	young := cache("v1.10.0", "wazero-v1.10.0"+sfx+"/"+key)
	os.Chtimes(filepath.Join(young, "wazero-v1.10.0"+sfx, key), time.Now(), time.Now())
	kept := []string{
		young,
		cache(filepath.Base(current), "wazero-x"+sfx+"/"+key), // old, but this build's
		cache("v1.9.0", "wazero-v1.9.0"+sfx+"/"+key, "notes.txt"),
		cache("v1.8.0", "wazero-v1.8.0"+sfx+"/"+strings.ToUpper(key)),
		cache("v1.7.0", "wazero-v1.7.0"+sfx+"/"+key+".tmp"),
		cache("v1.6.0", "other/"+key),
	}
	// A link to a stale cache elsewhere: neither it nor its target goes.
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.MkdirAll(target, 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(target, key), []byte("WAZEVO"), 0o600)
	os.Chtimes(filepath.Join(target, key), old, old)
	os.Chtimes(target, old, old)
	link := filepath.Join(root, "v1.5.0")
	if err := os.Symlink(target, link); err == nil {
		kept = append(kept, link, filepath.Join(target, key))
	} else {
		t.Logf("no link checked: %v", err) // Windows without the privilege
	}

	rt, err := NewRuntime(context.Background(), Config{AgentDir: agent})
	if err != nil {
		t.Fatal(err)
	}
	rt.Close(context.Background())
	for _, d := range gone {
		if _, err := os.Lstat(d); !os.IsNotExist(err) {
			t.Errorf("%s: still there (%v)", filepath.Base(d), err)
		}
	}
	for _, d := range kept {
		if _, err := os.Lstat(d); err != nil {
			t.Errorf("%s: removed (%v)", filepath.Base(d), err)
		}
	}
}

// The cache lives in a directory named by the version of wazero linked in,
// as the build information records it.
func TestCompileCacheDirNamedByVersion(t *testing.T) {
	dep := func(path, version string, repl *debug.Module) *debug.Module {
		return &debug.Module{Path: path, Version: version, Replace: repl}
	}
	for _, c := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{Deps: []*debug.Module{dep("golang.org/x/sys", "v0.49.0", nil), dep("github.com/tetratelabs/wazero", "v1.12.0", nil)}}, "v1.12.0"},
		{&debug.BuildInfo{Deps: []*debug.Module{dep("github.com/tetratelabs/wazero", "v1.12.0", dep("example.com/wazero", "v1.13.0", nil))}}, "v1.13.0"},
		{&debug.BuildInfo{Deps: []*debug.Module{dep("github.com/tetratelabs/wazero", "v1.12.0", dep("./wazero", "", nil))}}, "unknown"},
		{&debug.BuildInfo{}, "unknown"},
		{nil, "unknown"},
	} {
		if got := wazeroVersionIn(c.info); got != c.want {
			t.Errorf("wazeroVersionIn = %q, want %q", got, c.want)
		}
	}
	if got := filepath.Base(compileCacheDir("root")); got != wazeroVersion() {
		t.Fatalf("cache directory %q, want %q", got, wazeroVersion())
	}
}
