package host

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
)

// Caches of other wazero versions are removed once nothing has been added
// to them for a while; everything pi cannot tell is such a cache stays: the
// current version's, a young one (a pi of that version may still use it),
// another CPU's or OS's, one holding a file wazero does not write, a link,
// and anything not named like wazero's.
func TestPruneCompileCaches(t *testing.T) {
	agent := t.TempDir()
	dir := filepath.Join(agent, "cache", "wazero")
	key := strings.Repeat("0123456789abcdef", 4)
	old := time.Now().Add(-30 * 24 * time.Hour)
	sfx := "-" + runtime.GOARCH + "-" + runtime.GOOS
	cache := func(name string, files ...string) string {
		t.Helper()
		d := filepath.Join(dir, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(d, f), []byte("WAZEVO"), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(filepath.Join(d, f), old, old)
		}
		os.Chtimes(d, old, old)
		return d
	}
	gone := []string{
		cache("wazero-v1.12.0"+sfx, key, key[:63]+"1", key+".123456.tmp"), // upstream's, before pi's patch
		cache("wazero-v1.11.0-pi.1" + sfx),                                // empty
	}
	young := cache("wazero-v1.12.0-pi.0"+sfx, key)
	os.Chtimes(filepath.Join(young, key), time.Now(), time.Now())
	kept := []string{
		young,
		cache("wazero-v1.12.0-pi.0-arm64-plan9", key),
		cache("wazero-v1.10.0"+sfx, key, "notes.txt"),
		cache("wazero-v1.9.0"+sfx, strings.ToUpper(key)),
		cache("wazero-v1.8.0"+sfx, key+".tmp"),
		cache("mine", key),
	}
	target := cache("elsewhere", key)
	link := filepath.Join(dir, "wazero-v1.7.0"+sfx)
	if err := os.Symlink(target, link); err == nil {
		kept = append(kept, link, target)
	} else {
		t.Logf("no link checked: %v", err) // Windows without the privilege
	}

	rt, err := NewRuntime(context.Background(), Config{AgentDir: agent})
	if err != nil {
		t.Fatal(err)
	}
	rt.Close(context.Background())
	kept = append(kept, filepath.Join(dir, wazero.CompilationCacheDirName()))
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
	if _, err := os.Stat(filepath.Join(target, key)); err != nil {
		t.Errorf("the link's target lost its file: %v", err)
	}
}
