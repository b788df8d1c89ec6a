// Package atomicfile replaces a file's contents durably: readers see the old
// contents or the new, never a half-written file, and once Write returns the
// new contents survive a crash (the file and its directory are synced).
//
// It is hand-written rather than github.com/google/renameio/v2 because that
// package does not offer its writer on Windows, and pi builds for Windows.
package atomicfile
