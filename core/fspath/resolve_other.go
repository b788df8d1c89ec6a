//go:build !linux

package fspath

// noLinks is false where there is no openat2: Resolve looks up each
// component.
func noLinks(string) bool { return false }
