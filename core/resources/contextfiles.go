package resources

import (
	"os"
	"path/filepath"
	"strings"
)

// ContextFileNames are the context file names looked for in each directory,
// in order of preference; the first existing regular file wins.
var ContextFileNames = []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

// ContextFile is one project-instructions file given to the model as data.
// Path is absolute. Its JSON form carries only the path.
type ContextFile struct {
	Path    string
	Content string
}

// LoadContextFiles finds the context files for a run in cwd: the agent
// dir's file first, then one file per directory from the filesystem root down
// to cwd (see [ContextFileNames]). A path is never listed twice. Candidates
// that are directories are passed over silently; an unreadable file yields a
// diagnostic and is left out.
//
// In a linked git worktree nested inside its main checkout, the main
// checkout's file is skipped when the worktree root has its own file of the
// same name. Submodules, bare-repository layouts, sibling worktrees and
// `.git` files pointing at a missing directory change nothing.
func LoadContextFiles(agentDir, cwd string) ([]ContextFile, []Diagnostic) {
	var (
		files []ContextFile
		diags diagnostics
		seen  = map[string]bool{}
	)
	add := func(path string) {
		if path == "" || seen[path] {
			return
		}
		seen[path] = true
		text, err := readText(path)
		if err != nil {
			diags.add(KindWarning, path, "cannot read context file: %v", err)
			return
		}
		files = append(files, ContextFile{Path: path, Content: text})
	}
	if agentDir != "" {
		if abs, err := filepath.Abs(agentDir); err == nil {
			add(pickContextFile(abs))
		}
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		diags.add(KindError, cwd, "cannot resolve working directory: %v", err)
		return files, diags
	}
	dirs := ancestors(abs)
	mainDir, wtRoot, linked := linkedWorktree(abs)
	var skipName string
	if linked {
		if p := pickContextFile(wtRoot); p != "" {
			skipName = filepath.Base(p)
		}
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		p := pickContextFile(dirs[i])
		if p == "" {
			continue
		}
		if skipName != "" && filepath.Base(p) == skipName && sameDir(dirs[i], mainDir) {
			continue
		}
		add(p)
	}
	return files, diags
}

// pickContextFile returns the first context file candidate in dir that is a
// regular file, or "".
func pickContextFile(dir string) string {
	for _, name := range ContextFileNames {
		p := filepath.Join(dir, name)
		if isRegularFile(p) {
			return p
		}
	}
	return ""
}

// ancestors returns dir and each of its parents, nearest first.
func ancestors(dir string) []string {
	var out []string
	for {
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			return out
		}
		dir = parent
	}
}

// linkedWorktree reports whether cwd lies in a linked git worktree nested
// inside its main checkout. It looks at the nearest `.git` entry: a `.git`
// file whose `gitdir:` target exists and holds a `commondir` file leading to
// a directory named `.git`; the main checkout is that directory's parent and
// must be a strict ancestor of the worktree root.
func linkedWorktree(cwd string) (mainDir, root string, ok bool) {
	for _, dir := range ancestors(cwd) {
		gitPath := filepath.Join(dir, ".git")
		fi, err := os.Stat(gitPath)
		if err != nil {
			continue
		}
		if !fi.Mode().IsRegular() {
			return "", "", false // an ordinary repository (or something odd)
		}
		b, err := os.ReadFile(gitPath)
		if err != nil {
			return "", "", false
		}
		line, _, _ := strings.Cut(strings.TrimPrefix(string(b), bom), "\n")
		target, found := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
		if !found {
			return "", "", false
		}
		target = strings.TrimSpace(target)
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		if !isDir(target) {
			return "", "", false
		}
		cd, err := os.ReadFile(filepath.Join(target, "commondir"))
		if err != nil {
			return "", "", false // a submodule, not a linked worktree
		}
		common := strings.TrimSpace(string(cd))
		if !filepath.IsAbs(common) {
			common = filepath.Join(target, common)
		}
		common = filepath.Clean(common)
		if filepath.Base(common) != ".git" || !isDir(common) {
			return "", "", false // bare layout: no main checkout
		}
		main := filepath.Dir(common)
		if !isStrictAncestor(main, dir) {
			return "", "", false
		}
		return main, dir, true
	}
	return "", "", false
}

func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return a == b || realPath(a) == realPath(b)
}

// isStrictAncestor reports whether dir a strictly contains dir b.
func isStrictAncestor(a, b string) bool {
	ra, rb := realPath(a), realPath(b)
	rel, err := filepath.Rel(ra, rb)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	return !filepath.IsAbs(rel)
}
