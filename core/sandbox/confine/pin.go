package confine

import (
	"path/filepath"
	"sort"
	"strings"
)

// pinned lists the directories to pin for a command: every directory
// strictly between a writable root and a protected path below it (for
// /tree/.git/hooks under the root /tree, /tree/.git). A read-only mount
// over a protected path keeps the path itself, but the kernel lets a
// process rename or remove a directory that merely has mounts below it:
// `mv .git .git-old && mkdir .git` left the protected hooks and config
// behind under the old name and handed the command a fresh .git of its
// own, which the user's next git then trusted. A directory that is itself
// a mount point cannot be renamed or removed (EBUSY), so the helper binds
// each of these over itself, writable as before. Sorted, parents first:
// a parent bound after its child would cover the child's mount.
func pinned(write, protected []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range protected {
		p = filepath.Clean(p)
		for _, root := range write {
			root = filepath.Clean(root)
			if p == root || !strings.HasPrefix(p, withSlash(root)) {
				continue
			}
			for d := filepath.Dir(p); d != root && strings.HasPrefix(d, withSlash(root)); d = filepath.Dir(d) {
				if !seen[d] {
					seen[d] = true
					out = append(out, d)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return depth(out[i]) < depth(out[j]) || depth(out[i]) == depth(out[j]) && out[i] < out[j]
	})
	return out
}

func withSlash(p string) string {
	if strings.HasSuffix(p, "/") {
		return p
	}
	return p + "/"
}

func depth(p string) int { return strings.Count(p, "/") }
