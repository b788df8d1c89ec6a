//go:build !unix

package host

// readOffHeap is not used outside Unix: modules are read into the heap
// (see modulebuf_unix.go).
func readOffHeap(path string, size int) (b []byte, release func(), ok bool) {
	return nil, nil, false
}
