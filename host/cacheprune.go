package host

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tetratelabs/wazero"
)

// staleCacheAge is how long pi keeps what it may no longer use under
// <agent dir>/cache: a compilation cache of another wazero version must
// have gone without a new entry that long before pi removes it (a pi of
// that version still in use, two builds side by side on one agent
// directory, adds entries as it compiles and keeps its cache), and a guest
// snapshot is removed that long after it was written (see pruneSnapshots).
const staleCacheAge = 7 * 24 * time.Hour

// pruneCompileCaches removes from dir (pi's compilation cache directory,
// <agent dir>/cache/wazero) the caches of other wazero versions, which this
// build never reads: wazero keeps each version's entries in a directory of
// its own (wazero.CompilationCacheDirName), so a cache written before an
// upgrade, or before pi's patch of wazero changed the entries' format,
// would stay on disk for good. Only what is certainly such a cache goes: a
// directory (not a link) named like wazero's, for this OS and CPU, holding
// nothing but regular files named like wazero's entries (and the temporary
// files it writes them through), none added within staleCacheAge. Anything
// else is left alone, and a failure only leaves the cache where it is.
func pruneCompileCaches(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	current := wazero.CompilationCacheDirName()
	suffix := "-" + runtime.GOARCH + "-" + runtime.GOOS
	for _, e := range entries {
		name := e.Name()
		if name == current || !e.IsDir() || !strings.HasPrefix(name, "wazero-") || !strings.HasSuffix(name, suffix) {
			continue
		}
		sub := filepath.Join(dir, name)
		files, ok := staleCache(sub, now)
		if !ok {
			continue
		}
		for _, f := range files {
			os.Remove(filepath.Join(sub, f))
		}
		os.Remove(sub) // fails, leaving it, if anything else appeared
	}
}

// staleCache lists the entries of the cache directory sub, and reports
// whether it holds only wazero's entries, none newer than staleCacheAge.
func staleCache(sub string, now time.Time) ([]string, bool) {
	st, err := os.Lstat(sub)
	if err != nil || !st.IsDir() {
		return nil, false
	}
	newest := st.ModTime()
	files, err := os.ReadDir(sub)
	if err != nil {
		return nil, false
	}
	names := make([]string, 0, len(files))
	for _, f := range files {
		if !f.Type().IsRegular() || !cacheEntryName(f.Name()) {
			return nil, false
		}
		info, err := f.Info()
		if err != nil {
			return nil, false
		}
		if info.ModTime().After(newest) {
			newest = info.ModTime()
		}
		names = append(names, f.Name())
	}
	return names, now.Sub(newest) >= staleCacheAge
}

// cacheEntryName reports whether name is a wazero cache entry's (the
// hex SHA-256 of its key) or a temporary file one is written through
// (<entry>.<digits>.tmp).
func cacheEntryName(name string) bool {
	key, rest, _ := strings.Cut(name, ".")
	if len(key) != 64 || strings.ToLower(key) != key {
		return false
	}
	if _, err := hex.DecodeString(key); err != nil {
		return false
	}
	if rest == "" {
		return !strings.Contains(name, ".")
	}
	digits, ok := strings.CutSuffix(rest, ".tmp")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
