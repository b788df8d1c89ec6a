//go:build windows

package atomicfile

// syncDir does nothing on Windows: a directory cannot be opened for syncing
// there, and NTFS journals the rename's metadata itself.
func syncDir(string) error { return nil }
