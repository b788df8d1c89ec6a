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
		if err == nil && !d.IsDir() {
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
