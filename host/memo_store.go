package host

import (
	"os"
	"path/filepath"
	"sync"

	"github.com/piwasm/pi/internal/atomicfile"
)

// DirStore is a hooks.MemoStore kept as one small file per key under a
// directory (by default <agentDir>/cache/memo), with an in-memory layer in
// front. Writes go through internal/atomicfile, so a reader never
// sees half an entry; a failed write only costs a recomputation later.
type DirStore struct {
	dir string
	mem sync.Map
}

// NewDirStore returns a store in dir (created on the first write).
func NewDirStore(dir string) *DirStore { return &DirStore{dir: dir} }

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
	b, err := os.ReadFile(s.path(key))
	if err != nil {
		return nil, false
	}
	s.mem.Store(key, b)
	return b, true
}

// Put stores value under key.
func (s *DirStore) Put(key string, value []byte) {
	s.mem.Store(key, value)
	p := s.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return
	}
	_ = atomicfile.Write(p, value, 0o600) // a lost entry only costs a recomputation
}
