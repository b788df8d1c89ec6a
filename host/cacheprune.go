package host

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// staleCacheAge is how long pi keeps what it may no longer use under
// <agent dir>/cache: the compilation cache of another wazero version must
// have gone without a new entry that long before pi removes it (a pi of
// that version still in use, two builds side by side on one agent
// directory, adds entries as it compiles and keeps its cache), and a guest
// snapshot is removed that long after it was written.
const staleCacheAge = 7 * 24 * time.Hour

// wazeroVersion is the version of wazero linked into this binary, as its
// build information records it ("unknown" without one). wazero keys its
// cache entries by the same version, so a cache made by another version is
// never read by this one.
var wazeroVersion = sync.OnceValue(func() string {
	info, _ := debug.ReadBuildInfo()
	return wazeroVersionIn(info)
})

// wazeroVersionIn returns the version of wazero info records (the
// replacement's, if it is replaced), or "unknown" (a test binary records
// no dependencies).
func wazeroVersionIn(info *debug.BuildInfo) string {
	if info != nil {
		for _, d := range info.Deps {
			if d.Path != "github.com/tetratelabs/wazero" {
				continue
			}
			if d.Replace != nil {
				d = d.Replace
			}
			if d.Version != "" && d.Version != "(devel)" {
				return d.Version
			}
		}
	}
	return "unknown"
}

// compileCacheDir is the directory of this build's compilation cache under
// root (<agent dir>/cache/wazero): one directory per wazero version, named
// by pi, inside which wazero keeps its entries as it likes. pi prunes the
// siblings (pruneCompileCaches) by its own layout, never by guessing how
// wazero names its directories.
func compileCacheDir(root string) string {
	v := strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r < ' ' {
			return '_'
		}
		return r
	}, wazeroVersion())
	return filepath.Join(root, v)
}

// pruneCompileCaches removes from root (<agent dir>/cache/wazero) the
// compilation caches other than current, which this build never reads: a
// cache written before an upgrade of wazero would otherwise stay on disk
// for good. Only what is certainly such a cache goes: a directory (not a
// link) holding nothing but wazero's entries (and the temporary files it
// writes them through), directly or in directories named wazero-* (how
// wazero lays out the directory it is given, and how pi's earlier builds
// laid out root itself), none added within staleCacheAge. Anything else is
// left alone, and a failure only leaves the cache where it is.
func pruneCompileCaches(root, current string, now time.Time) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, e := range entries {
		sub := filepath.Join(root, e.Name())
		if sub == current || !e.IsDir() {
			continue
		}
		var files []string
		newest, ok := staleCache(sub, 0, &files)
		if !ok || now.Sub(newest) < staleCacheAge {
			continue
		}
		for _, f := range files {
			os.Remove(f)
		}
		// Directories deepest first; each fails, leaving it, if anything
		// else appeared in it.
		for i := len(files) - 1; i >= 0; i-- {
			if st, err := os.Lstat(files[i]); err == nil && st.IsDir() {
				os.Remove(files[i])
			}
		}
		os.Remove(sub)
	}
}

// staleCache walks the cache directory dir (depth levels below root's
// children), appending what it holds to files (directories after their
// contents), and reports the newest modification time in it and whether it
// holds only wazero's entries.
func staleCache(dir string, depth int, files *[]string) (time.Time, bool) {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return time.Time{}, false
	}
	newest := st.ModTime()
	list, err := os.ReadDir(dir)
	if err != nil {
		return time.Time{}, false
	}
	for _, f := range list {
		p := filepath.Join(dir, f.Name())
		switch {
		case f.Type().IsRegular() && cacheEntryName(f.Name()):
			info, err := f.Info()
			if err != nil {
				return time.Time{}, false
			}
			if info.ModTime().After(newest) {
				newest = info.ModTime()
			}
			*files = append(*files, p)
		case f.IsDir() && depth < 1 && strings.HasPrefix(f.Name(), "wazero-"):
			t, ok := staleCache(p, depth+1, files)
			if !ok {
				return time.Time{}, false
			}
			if t.After(newest) {
				newest = t
			}
			*files = append(*files, p)
		default:
			return time.Time{}, false
		}
	}
	return newest, true
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
