package tool

import (
	"sync"
	"testing"
)

func TestLocksSerialisePerPath(t *testing.T) {
	var l Locks
	var mu sync.Mutex
	inside := map[string]int{}
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			p := []string{"/a", "/b"}[i%2]
			unlock := l.Lock(p)
			mu.Lock()
			inside[p]++
			if inside[p] != 1 {
				t.Errorf("%s held twice", p)
			}
			mu.Unlock()
			mu.Lock()
			inside[p]--
			mu.Unlock()
			unlock()
			unlock() // a second call is harmless
		}(i)
	}
	wg.Wait()
	if len(l.paths) != 0 {
		t.Fatalf("lock table not emptied: %d", len(l.paths))
	}
}
