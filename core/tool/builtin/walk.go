package builtin

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/resources"
)

// errStop ends a walk early without being an error.
var errStop = errors.New("stop walking")

// walker visits a directory tree in name order the way rg and fd do by
// default: .gitignore rules apply (those of the directories above the
// search root too, up to the repository root), hidden files are included,
// the .git directory is skipped, and symlinked directories are not entered.
type walker struct {
	fs      FS
	allow   func(abs string) bool // nil: every entry
	skipped int                   // entries allow refused
	ign     resources.Gitignore
	ignRoot string // the directory .gitignore paths are relative to
}

// visitFunc gets each entry's path relative to the walk's root (slash
// separated), its absolute path and its entry. Returning errStop ends the
// walk; returning fs.SkipDir for a directory skips it.
type visitFunc func(rel, abs string, d fs.DirEntry) error

// walk visits the tree below root for tool, leaving out the entries the
// Guard or Visit refuse; it returns how many it left out.
func (e Env) walk(ctx context.Context, tool, root string, visit visitFunc) (int, error) {
	w := &walker{fs: e.FS, ignRoot: root}
	if e.Visit != nil {
		w.allow = func(abs string) bool { return e.entryAllowed(tool, abs) }
	}
	// Rules from the repository root down to (not including) the search root.
	for dir := root; ; {
		if _, err := e.FS.Lstat(filepath.Join(dir, ".git")); err == nil {
			w.ignRoot = dir
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if w.ignRoot != root {
		rel, _ := filepath.Rel(w.ignRoot, root)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		dir := w.ignRoot
		for i := range parts {
			w.loadIgnore(dir)
			dir = filepath.Join(dir, parts[i])
		}
	}
	err := w.dir(ctx, root, "", visit)
	if errors.Is(err, errStop) {
		return w.skipped, nil
	}
	return w.skipped, err
}

func (w *walker) loadIgnore(dir string) {
	data, err := w.fs.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return
	}
	rel, _ := filepath.Rel(w.ignRoot, dir)
	if rel == "." {
		rel = ""
	}
	w.ign.Add(filepath.ToSlash(rel), string(data))
}

func (w *walker) dir(ctx context.Context, abs, rel string, visit visitFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := w.fs.ReadDir(abs)
	if err != nil {
		return nil // unreadable directories are passed over, as rg and fd do
	}
	w.loadIgnore(abs)
	ignRel, _ := filepath.Rel(w.ignRoot, abs)
	ignRel = filepath.ToSlash(ignRel)
	if ignRel == "." {
		ignRel = ""
	}
	for _, d := range entries {
		name := d.Name()
		if name == ".git" {
			continue
		}
		isDir := d.IsDir()
		if w.ign.Len() > 0 && w.ign.Match(joinRel(ignRel, name), isDir) {
			continue
		}
		childRel, childAbs := joinRel(rel, name), filepath.Join(abs, name)
		if w.allow != nil && !w.allow(childAbs) {
			w.skipped++
			continue
		}
		err := visit(childRel, childAbs, d)
		if err == fs.SkipDir {
			continue
		}
		if err != nil {
			return err
		}
		if isDir {
			if err := w.dir(ctx, childAbs, childRel, visit); err != nil {
				return err
			}
		}
	}
	return nil
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
