package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"

	"github.com/piwasm/pi/internal/atomicfile"
)

// digestCache remembers, per module file, what reading it taught us (its
// SHA-256, imports and exports), keyed by the file's identity: device,
// inode, size, modification and change times. The change time cannot be
// set by a user, so a module rewritten in place never matches a stale
// entry; and the bytes are checked against the SHA-256 before any code is
// compiled from them. It saves hashing every module on every run.
type digestCache struct {
	path    string
	mu      sync.Mutex
	entries map[string]digestEntry
	dirty   bool
}

type digestEntry struct {
	Identity   fileIdentity `json:"identity"`
	SHA256     string       `json:"sha256"`
	Size       int          `json:"size"`
	Imports    []Import     `json:"imports,omitempty"`
	ImportsErr string       `json:"importsErr,omitempty"`
	Exports    []string     `json:"exports,omitempty"`
}

type fileIdentity struct {
	Dev, Ino         uint64
	Size             int64
	MtimeNs, CtimeNs int64
}

func openDigestCache(dir string) *digestCache {
	c := &digestCache{path: filepath.Join(dir, "modules.json"), entries: map[string]digestEntry{}}
	if b, err := ReadRegularFile(c.path, 16<<20); err == nil {
		// A bad cache (corrupt, or "null") is only a slower run: start
		// empty.
		var m map[string]digestEntry
		if json.Unmarshal(b, &m) == nil && m != nil {
			c.entries = m
		}
	}
	return c
}

func (c *digestCache) lookup(path string) (digestEntry, bool) {
	id, ok := identityOf(path)
	if !ok {
		return digestEntry{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, found := c.entries[path]
	return e, found && e.Identity == id && e.SHA256 != ""
}

func (c *digestCache) store(p *Package) {
	id, ok := identityOf(p.ModulePath)
	if !ok || id.Size != int64(p.Size) {
		return
	}
	e := digestEntry{Identity: id, SHA256: p.SHA256, Size: p.Size, Imports: p.Imports, Exports: p.exports}
	if p.importsErr != nil {
		e.ImportsErr = p.importsErr.Error()
	}
	c.mu.Lock()
	c.entries[p.ModulePath] = e
	c.dirty = true
	c.mu.Unlock()
}

// save writes the cache if it changed, atomically (internal/atomicfile).
func (c *digestCache) save() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty {
		return
	}
	b, err := json.Marshal(c.entries)
	if err != nil || os.MkdirAll(filepath.Dir(c.path), 0o700) != nil {
		return
	}
	if atomicfile.Write(c.path, b, 0o600) != nil {
		return
	}
	c.dirty = false
}
