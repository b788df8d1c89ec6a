package host

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// DirStore is a hooks.MemoStore kept as one small file per key under a
// directory (by default <agentDir>/cache/memo), with an in-memory layer in
// front. Writes go to a temporary file renamed into place, so a reader never
// sees half an entry; a failed write only costs a recomputation later.
//
// The store is bounded: it is pruned by removing entries not used for
// MemoMaxAge and then the least recently used ones until it holds at most
// MemoMaxBytes. A prune walks the whole directory, so it is not done by
// every process: the first write of a process prunes when the last prune
// (the stamp file .pruned, which records its time and the size it left)
// is older than memoPruneEvery, and again whenever what the stamp recorded
// plus what this process wrote passes the bound. Every other start costs
// one small read. A hit marks its entry used (at most once a day per
// entry, to keep hits cheap).
type DirStore struct {
	dir      string
	mem      sync.Map
	maxBytes int64
	maxAge   time.Duration
	now      func() time.Time

	pruneMu sync.Mutex
	checked bool  // the stamp was read by this process
	size    int64 // the store's size as the last prune left it
	written int64 // bytes this process wrote since
}

// memoPruneEvery is how often the memo directory is walked at most, unless
// the size bound is reached first.
const memoPruneEvery = 24 * time.Hour

// memoStamp is the prune stamp's name in the store's directory.
const memoStamp = ".pruned"

// Bounds of a memo store.
const (
	MemoMaxBytes = 256 << 20
	MemoMaxAge   = 30 * 24 * time.Hour
)

// NewDirStore returns a store in dir (created on the first write), bounded
// by MemoMaxBytes and MemoMaxAge.
func NewDirStore(dir string) *DirStore {
	return &DirStore{dir: dir, maxBytes: MemoMaxBytes, maxAge: MemoMaxAge, now: time.Now}
}

// MemoDir is where a runtime keeps memoised hook results.
func MemoDir(agentDir string) string { return filepath.Join(agentDir, "cache", "memo") }

func (s *DirStore) path(key string) string {
	if len(key) < 3 {
		return filepath.Join(s.dir, key)
	}
	return filepath.Join(s.dir, key[:2], key+".json")
}

// Get returns the value stored under key.
func (s *DirStore) Get(key string) ([]byte, bool) {
	if v, ok := s.mem.Load(key); ok {
		return v.([]byte), true
	}
	p := s.path(key)
	b, err := ReadRegularFile(p, 64<<20)
	if err != nil {
		return nil, false
	}
	if st, err := os.Stat(p); err == nil && s.now().Sub(st.ModTime()) > 24*time.Hour {
		now := s.now()
		os.Chtimes(p, now, now) // used: keep it through the next prune
	}
	s.mem.Store(key, b)
	return b, true
}

// Put stores value under key.
func (s *DirStore) Put(key string, value []byte) {
	s.pruneIfDue(int64(len(value)))
	s.mem.Store(key, value)
	p := s.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(value)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), p) != nil {
		os.Remove(tmp.Name())
	}
}

// pruneIfDue prunes before n more bytes are written when the last prune
// is too old (or unknown), or when the store would pass its size bound.
func (s *DirStore) pruneIfDue(n int64) {
	s.pruneMu.Lock()
	defer s.pruneMu.Unlock()
	stamp := filepath.Join(s.dir, memoStamp)
	due := false
	if !s.checked {
		s.checked = true
		st, err := os.Stat(stamp)
		var size int64
		if err == nil {
			b, rerr := os.ReadFile(stamp)
			_, serr := fmt.Sscan(string(b), &size)
			age := s.now().Sub(st.ModTime())
			due = rerr != nil || serr != nil || age < 0 || age > memoPruneEvery
		} else {
			due = true
		}
		s.size = size
	}
	s.written += n
	if !due && s.size+s.written <= s.maxBytes {
		return
	}
	s.size, s.written = s.prune(), n
	if os.MkdirAll(s.dir, 0o700) == nil && os.WriteFile(stamp, []byte(fmt.Sprint(s.size)), 0o600) == nil {
		now := s.now()
		os.Chtimes(stamp, now, now)
	}
}

// prune removes old entries, then the least recently used ones over the
// size bound, and temporary files left by interrupted writes, and returns
// the size of what is left. Errors only leave entries in place.
func (s *DirStore) prune() int64 {
	type entry struct {
		path string
		size int64
		mod  time.Time
	}
	var entries []entry
	var total int64
	now := s.now()
	filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, err := d.Info()
		if err != nil || !info.Mode().IsRegular() || d.Name() == memoStamp {
			return nil
		}
		age := now.Sub(info.ModTime())
		if age > s.maxAge || strings.HasPrefix(d.Name(), ".tmp-") && age > time.Hour {
			os.Remove(p)
			return nil
		}
		entries = append(entries, entry{p, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
	})
	if total <= s.maxBytes {
		return total
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].mod.Before(entries[j].mod) })
	for _, e := range entries {
		if total <= s.maxBytes {
			break
		}
		if os.Remove(e.path) == nil {
			total -= e.size
		}
	}
	return total
}
