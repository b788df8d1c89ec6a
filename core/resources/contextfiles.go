package resources

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/diag"
)

// contextFileNames are the context file names looked for in each directory,
// in order of preference; the first existing regular file wins.
var contextFileNames = []string{"AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"}

// ContextFile is one project-instructions file given to the model as data.
// Path is absolute. Its JSON form carries only the path.
type ContextFile struct {
	Path    string
	Content string
}

// contextSearch is the input of [findContextFiles].
//
// Trusted is the project's trust: a trusted project's context files may be
// symbolic links to anywhere, and files inside it are not held to the
// owner rule below. MaxBytes caps each file (0 means
// [defaultMaxPromptFileBytes]).
type contextSearch struct {
	AgentDir, Cwd string
	Trusted       bool
	MaxBytes      int64
}

// loadContextFiles is [findContextFiles] for an untrusted project with the
// default size cap.
func loadContextFiles(agentDir, cwd string) ([]ContextFile, []diag.Diagnostic) {
	return findContextFiles(contextSearch{AgentDir: agentDir, Cwd: cwd})
}

// findContextFiles finds the context files for a run in s.Cwd: the agent
// dir's file first, then one file per directory from the filesystem root down
// to cwd (see [contextFileNames]). A path is never listed twice. Candidates
// that are directories are passed over silently; an unreadable file yields a
// diagnostic and is left out.
//
// A context file comes from a repository the user may not have written, and
// its text goes to the provider and into the session file, so each must be:
//   - a regular file of at most s.MaxBytes (a warning names a larger one);
//   - inside its tree when it is a symbolic link: the project root (the git
//     root, or cwd) for directories within the project, the directory
//     itself for directories above it. A link out of its tree (say
//     AGENTS.md -> /proc/self/environ) is skipped with a diagnostic unless
//     the project is trusted. The agent dir's file is the user's own and may
//     link anywhere.
//   - neither it nor its directory writable by every user or owned by
//     another user than the current one or root (a /tmp/AGENTS.md on a
//     shared machine); skipped with a diagnostic, except for files inside a
//     trusted project.
//
// In a linked git worktree nested inside its main checkout, the main
// checkout's file is skipped when the worktree root has its own file of the
// same name. Submodules, bare-repository layouts, sibling worktrees and
// `.git` files pointing at a missing directory change nothing.
func findContextFiles(s contextSearch) ([]ContextFile, []diag.Diagnostic) {
	var (
		files []ContextFile
		diags diagnostics
		seen  = map[string]bool{}
	)
	add := func(path, tree string, inProject bool) {
		if path == "" || seen[path] {
			return
		}
		seen[path] = true
		if text, ok := s.read(path, tree, inProject, &diags); ok {
			files = append(files, ContextFile{Path: path, Content: text})
		}
	}
	if s.AgentDir != "" {
		if abs, err := filepath.Abs(s.AgentDir); err == nil {
			add(pickContextFile(abs), "", false)
		}
	}
	abs, err := filepath.Abs(s.Cwd)
	if err != nil {
		diags.add(KindError, s.Cwd, "cannot resolve working directory: %v", err)
		return files, diags
	}
	project := ProjectRoot(abs)
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
		tree, inProject := dirs[i], false
		if within(project, dirs[i]) {
			tree, inProject = project, true
		}
		add(p, tree, inProject)
	}
	return files, diags
}

// read reads one context file under the rules of [findContextFiles]. tree
// is the directory a symbolic link must stay in ("" for anywhere).
func (s contextSearch) read(path, tree string, inProject bool, ds *diagnostics) (string, bool) {
	fail := func(err error) (string, bool) {
		ds.add(KindWarning, path, "cannot read context file: %v", err)
		return "", false
	}
	lfi, err := os.Lstat(path)
	if err != nil {
		return fail(err)
	}
	open := path
	if lfi.Mode()&os.ModeSymlink != 0 && tree != "" {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return fail(err)
		}
		realTree := realPath(tree)
		switch {
		case within(realTree, target):
			// Open the resolved target under the tree: os.Root refuses
			// absolute links, and the target has none left to follow.
			tree, open = realTree, target
		case s.Trusted:
			tree = ""
		default:
			ds.add(KindSkipped, path, "it is a symbolic link to %s, outside %s; pi follows such links only in a trusted project", target, tree)
			return "", false
		}
	}
	f, err := openIn(tree, open)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	fi, err := checkRegular(f)
	if err != nil {
		return fail(err)
	}
	if !(s.Trusted && inProject) {
		why := foreignWritable(fi)
		if why == "" {
			if dfi, err := os.Stat(filepath.Dir(path)); err == nil {
				if w := foreignWritable(dfi); w != "" {
					why = "its directory is " + w
				}
			}
		} else {
			why = "it is " + why
		}
		if why != "" {
			ds.add(KindSkipped, path, "%s, so someone else may have written it", why)
			return "", false
		}
	}
	b, err := readCapped(f, s.MaxBytes)
	if err != nil {
		var big *errTooLarge
		if errors.As(err, &big) {
			ds.add(KindWarning, path, "context file left out: %v", err)
			return "", false
		}
		return fail(err)
	}
	return strings.TrimPrefix(string(b), bom), true
}

// openIn opens path, which lies in tree, through an [os.Root] on tree so a
// symbolic link (in the name or a parent) cannot lead out of it between a
// check and the open; with tree "" it opens path as it is. Either way a
// FIFO does not block the open.
func openIn(tree, path string) (*os.File, error) {
	if tree == "" {
		return os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	}
	rel, err := filepath.Rel(tree, path)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(tree)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.OpenFile(rel, os.O_RDONLY|openNonblock, 0)
}

// within reports whether path is dir or lies inside it (lexically).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// pickContextFile returns the first context file candidate in dir that is a
// regular file, or "".
func pickContextFile(dir string) string {
	for _, name := range contextFileNames {
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
