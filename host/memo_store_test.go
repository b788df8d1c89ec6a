package host

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Weakness: the memo grew without bound (one entry per distinct input, up
// to 16 MiB each). The first write of a process prunes entries older than
// the age bound and then the least recently used ones over the size bound.
func TestDirStoreIsBounded(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	seed := NewDirStore(dir)
	key := func(i int) string { return fmt.Sprintf("%064d", i) }
	for i := range 10 {
		seed.Put(key(i), []byte(strings.Repeat("x", 100)))
		// Entry i was last used i days ago; entry 9 is past the age bound.
		at := now.Add(-time.Duration(i) * 24 * time.Hour)
		if i == 9 {
			at = now.Add(-MemoMaxAge - time.Hour)
		}
		if err := os.Chtimes(seed.path(key(i)), at, at); err != nil {
			t.Fatal(err)
		}
	}
	s := NewDirStore(dir)
	s.now = func() time.Time { return now }
	s.maxBytes = 500
	s.Put(key(100), []byte(strings.Repeat("y", 100)))

	var kept []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != memoStamp {
			kept = append(kept, strings.TrimLeft(strings.TrimSuffix(d.Name(), ".json"), "0"))
		}
		return nil
	})
	// Pruned before the new entry was written: 9 by age, then 8…5 (the
	// least recently used) until 500 bytes remain; then 100 is added.
	if got := strings.Join(kept, ","); got != ",1,2,3,4,100" {
		t.Fatalf("kept %q", got)
	}
	// A hit on an old entry marks it used.
	old := now.Add(-5 * 24 * time.Hour)
	os.Chtimes(s.path(key(4)), old, old)
	s2 := NewDirStore(dir)
	s2.now = func() time.Time { return now }
	if _, ok := s2.Get(key(4)); !ok {
		t.Fatal("entry 4 lost")
	}
	if st, _ := os.Stat(s.path(key(4))); !st.ModTime().Equal(now) {
		t.Fatalf("a hit did not mark the entry used: %v", st.ModTime())
	}
}

// Pruning walks the whole store, so a start does not pay for it every
// time: within a day of the last prune (the stamp) a new process's first
// write only reads the stamp, and an expired entry stays; the walk comes
// when the stamp is a day old, or at once when the size the stamp recorded
// plus what the process writes passes the bound.
func TestDirStorePrunesCheaply(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	key := func(i int) string { return fmt.Sprintf("%064d", i) }
	var last *DirStore
	put := func(at time.Time, maxBytes int64, i, size int) {
		t.Helper()
		s := NewDirStore(dir)
		s.now = func() time.Time { return at }
		s.maxBytes = maxBytes
		s.Put(key(i), []byte(strings.Repeat("x", size)))
		if err := os.Chtimes(s.path(key(i)), at, at); err != nil {
			t.Fatal(err)
		}
		last = s
	}
	expire := func(i int) {
		t.Helper()
		old := now.Add(-MemoMaxAge - time.Hour)
		if err := os.Chtimes(last.path(key(i)), old, old); err != nil {
			t.Fatal(err)
		}
	}
	exists := func(i int) bool {
		_, err := os.Stat(last.path(key(i)))
		return err == nil
	}
	put(now, 1000, 1, 100) // prunes (no stamp yet), stamps 0 bytes
	expire(1)
	put(now.Add(time.Hour), 1000, 2, 100)
	if !exists(1) {
		t.Fatal("a start within a day of the last prune walked the store")
	}
	// Over the bound: the stamp's 0 bytes plus this process's 1100.
	put(now.Add(2*time.Hour), 1000, 3, 1100)
	if exists(1) || !exists(2) {
		t.Fatalf("passing the size bound did not prune the expired entry alone: 1 %v, 2 %v", exists(1), exists(2))
	}
	expire(2)
	put(now.Add(3*time.Hour), 1e6, 4, 1)
	if !exists(2) {
		t.Fatal("a start within a day of the last prune walked the store")
	}
	put(now.Add(2*time.Hour+memoPruneEvery+time.Minute), 1e6, 5, 1)
	if exists(2) || !exists(3) {
		t.Fatalf("a start a day after the last prune did not prune: 2 %v, 3 %v", exists(2), exists(3))
	}
}
