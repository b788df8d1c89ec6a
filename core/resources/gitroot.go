package resources

import (
	"os"
	"path/filepath"
)

// ProjectRoot is the directory a project's file grants are relative to: the
// nearest directory at or above cwd holding a .git entry (directory or
// file), or cwd itself outside a git checkout.
func ProjectRoot(cwd string) string {
	for d := filepath.Clean(cwd); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return filepath.Clean(cwd)
		}
	}
}
