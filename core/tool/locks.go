package tool

import "sync"

// Locks serialises writes per resolved path: a tool holds the path's lock
// across its whole read-modify-write so two edits of one file in the same
// turn never interleave. The zero value is ready to use.
type Locks struct {
	mu    sync.Mutex
	paths map[string]*pathLock
}

type pathLock struct {
	mu   sync.Mutex
	refs int
}

// Lock takes the lock for path and returns the function that releases it.
// Entries are dropped when nobody holds or waits for them, so the table does
// not grow with every file ever written.
func (l *Locks) Lock(path string) (unlock func()) {
	l.mu.Lock()
	if l.paths == nil {
		l.paths = map[string]*pathLock{}
	}
	pl := l.paths[path]
	if pl == nil {
		pl = &pathLock{}
		l.paths[path] = pl
	}
	pl.refs++
	l.mu.Unlock()

	pl.mu.Lock()
	var once sync.Once
	return func() {
		once.Do(func() {
			pl.mu.Unlock()
			l.mu.Lock()
			pl.refs--
			if pl.refs == 0 {
				delete(l.paths, path)
			}
			l.mu.Unlock()
		})
	}
}
