package fspath

import (
	"os"
	"path/filepath"
)

// maxLinks bounds the symbolic links Resolve follows, as the kernel does
// (ELOOP after 40).
const maxLinks = 40

// Resolve returns p (absolute or relative to the working directory) with
// every symbolic link followed, dangling links included; the part that does
// not exist yet is appended as written. A loop of links leaves the path as
// far as it could be resolved.
func Resolve(p string) string {
	if !filepath.IsAbs(p) {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
	}
	p = filepath.Clean(p)
	if noLinks(p) {
		return p
	}
	for range maxLinks {
		next, again := resolveOnce(p)
		if !again {
			return next
		}
		p = next
	}
	return p
}

// resolveOnce resolves the longest existing prefix of p. When the first
// missing component is a dangling link, it returns the path through the
// link's target and again=true, for another round.
func resolveOnce(p string) (string, bool) {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest), false
		}
		if fi, err := os.Lstat(cur); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if t, err := os.Readlink(cur); err == nil {
				if !filepath.IsAbs(t) {
					// The parent exists (cur does): resolve it before
					// joining, so ".." in the target means what it means
					// to the kernel.
					dir := filepath.Dir(cur)
					if rd, err := filepath.EvalSymlinks(dir); err == nil {
						dir = rd
					}
					t = filepath.Join(dir, t)
				}
				return filepath.Join(t, rest), true
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, false
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
