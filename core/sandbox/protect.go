package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// defaultProtected are the paths of the working tree that make code run
// later, outside any sandbox, or change the policy of the next run: pi's
// and other agents' project settings and extensions, git's hooks and
// configuration (core.hooksPath, core.fsmonitor, filter and diff drivers,
// aliases), git's per-repository attributes (which pick those drivers),
// direnv's .envrc and VS Code's tasks and settings. In workspace mode they
// are read-only to commands and the file tools. Relative to the working
// tree; git's are moved to the real git directory when .git is a file.
var defaultProtected = []string{".pi", ".agents", ".claude", ".vscode", ".envrc", ".git/hooks", ".git/config", ".git/info"}

// homeProtected are files in the home directory that run code or set
// policy later; they are protected only when a writable root covers them
// (pi started in ~, or ~ added to writableRoots), since otherwise nothing
// confined can write them anyway.
var homeProtected = []string{"~/.bashrc", "~/.bash_profile", "~/.bash_login", "~/.profile", "~/.zshrc", "~/.zshenv",
	"~/.zprofile", "~/.config/fish", "~/.gitconfig", "~/.config/git", "~/.ssh", "~/.config/autostart", "~/.config/systemd"}

// writableHomeProtected lists the agent dir (pi's global settings,
// extensions, trust and grants) and homeProtected where p's writable roots
// cover them.
func (p *Policy) writableHomeProtected(rs resolver, home, agentDir string) []Root {
	var out []Root
	if agentDir != "" {
		if a := rs.resolve(agentDir); p.Writable(a) {
			out = append(out, Root{Path: a, Reason: "pi's agent dir"})
		}
	}
	if home == "" {
		return out
	}
	for _, h := range homeProtected {
		if a := rs.resolve(filepath.Join(home, h[2:])); p.Writable(a) {
			out = append(out, Root{Path: a, Reason: "runs code later (in a writable root)"})
		}
	}
	return out
}

// defaultDenyRead are credential stores nothing run by the model should
// read; "~/" is the home directory. The agent dir's auth.json and
// models.json (API keys) are added by Build.
var defaultDenyRead = []string{"~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gh", "~/.netrc", "~/.docker", "~/.kube",
	"~/.git-credentials", "~/.config/gcloud", "~/.azure"}

// protectedRoots lists the protected paths for a working tree cwd: the
// defaults (less those settings remove with "!PATH"), git's code-running
// files where the git directory really is, the hooks directory and
// included files .git/config names inside the tree, and the paths
// settings add. Paths are resolved; missing ones are kept, so a command
// cannot create them either where the kernel allows.
func protectedRoots(rs resolver, cwd, home string, s Settings) []Root {
	var roots []Root
	abs := func(p string) string {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return rs.resolve(p)
	}
	removed := map[string]bool{}
	for _, r := range s.Protected {
		if r.remove {
			removed[abs(r.Path)] = true
		}
	}
	add := func(path, reason string) {
		if path == "" {
			return
		}
		if path = abs(path); !removed[path] {
			roots = append(roots, Root{Path: path, Reason: reason})
		}
	}
	gitDir, commonDir := gitDirs(cwd)
	for _, rel := range defaultProtected {
		p := filepath.Join(cwd, rel)
		if strings.HasPrefix(rel, ".git/") {
			if removed[abs(p)] {
				continue // "!.git/hooks" names it as the tree shows it
			}
			p = filepath.Join(commonDir, strings.TrimPrefix(rel, ".git/"))
		}
		add(p, "default")
	}
	for _, p := range gitIndirections(cwd, gitDir, commonDir, home) {
		add(p.Path, p.Reason)
	}
	for _, p := range gitConfigPaths(filepath.Join(commonDir, "config"), cwd, home) {
		add(p.Path, p.Reason)
	}
	for _, r := range s.Protected {
		if !r.remove {
			add(r.Path, r.Reason)
		}
	}
	return dedupe(roots)
}

// gitDirs finds the git directory of the tree at cwd and its common
// directory (they differ in a linked worktree, where .git is a file).
func gitDirs(cwd string) (gitDir, commonDir string) {
	gitDir = filepath.Join(cwd, ".git")
	if data, err := os.ReadFile(gitDir); err == nil && len(data) < 4096 {
		if d, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:"); ok {
			d = strings.TrimSpace(d)
			if !filepath.IsAbs(d) {
				d = filepath.Join(cwd, d)
			}
			gitDir = filepath.Clean(d)
		}
	}
	commonDir = gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil && len(data) < 4096 {
		d := strings.TrimSpace(string(data))
		if !filepath.IsAbs(d) {
			d = filepath.Join(gitDir, d)
		}
		commonDir = filepath.Clean(d)
	}
	return gitDir, commonDir
}

// Reasons for git's indirections, as pi sandbox check shows them.
const (
	reasonGitRedirect = "git: sends git to another directory for its configuration and hooks"
	reasonGitConfig   = "git: configuration read by git"
	reasonSubmodule   = "git: a submodule's configuration and hooks"
)

// Bounds on the walk of a repository's worktrees and submodules, so a
// repository built to be huge cannot stall pi at start.
const (
	maxGitEntries  = 512
	maxModuleDepth = 8
)

// gitIndirections lists the files git follows to another git directory or
// more configuration, protected whether they exist or not (a missing one
// a command creates is moved aside after it): a .git file (gitdir: in a
// linked worktree or a submodule's checkout), commondir (git takes config
// and hooks from the directory it names: a command could copy .git to a
// writable evilgit/, plant a hook there and write ../evilgit into it),
// config.worktree, each linked worktree's commondir, config.worktree and
// gitdir under worktrees/, and each submodule's git directory under
// modules/ (its config, hooks, info, its own indirections and includes,
// and the .git file of its checkout).
func gitIndirections(cwd, gitDir, commonDir, home string) []Root {
	var out []Root
	add := func(path, reason string) { out = append(out, Root{Path: path, Reason: reason}) }
	if fi, err := os.Lstat(filepath.Join(cwd, ".git")); err == nil && fi.Mode().IsRegular() {
		add(filepath.Join(cwd, ".git"), reasonGitRedirect)
	}
	for _, d := range []string{gitDir, commonDir} {
		add(filepath.Join(d, "commondir"), reasonGitRedirect)
		add(filepath.Join(d, "config.worktree"), reasonGitConfig)
	}
	n := 0
	if ents, err := os.ReadDir(filepath.Join(commonDir, "worktrees")); err == nil {
		for _, e := range ents {
			if n++; n > maxGitEntries {
				break
			}
			if !e.IsDir() {
				continue
			}
			w := filepath.Join(commonDir, "worktrees", e.Name())
			add(filepath.Join(w, "commondir"), reasonGitRedirect)
			add(filepath.Join(w, "gitdir"), reasonGitRedirect)
			add(filepath.Join(w, "config.worktree"), reasonGitConfig)
		}
	}
	var modules func(dir string, depth int)
	modules = func(dir string, depth int) {
		ents, err := os.ReadDir(dir)
		if err != nil || depth > maxModuleDepth {
			return
		}
		for _, e := range ents {
			if n++; n > maxGitEntries {
				return
			}
			if !e.IsDir() {
				continue
			}
			d := filepath.Join(dir, e.Name())
			if _, err := os.Lstat(filepath.Join(d, "HEAD")); err != nil {
				modules(d, depth+1) // a submodule's name may have slashes
				continue
			}
			for _, f := range []string{"config", "hooks", "info", "commondir", "config.worktree"} {
				add(filepath.Join(d, f), reasonSubmodule)
			}
			// The submodule's checkout, where its relative core.hooksPath
			// is taken from (the tree, when its config names none).
			checkout := cwd
			if wt := gitConfigValue(filepath.Join(d, "config"), "core", "worktree"); wt != "" {
				if !filepath.IsAbs(wt) {
					wt = filepath.Join(d, wt)
				}
				checkout = filepath.Clean(wt)
				add(filepath.Join(checkout, ".git"), reasonSubmodule)
			}
			out = append(out, gitConfigPaths(filepath.Join(d, "config"), checkout, home)...)
			modules(filepath.Join(d, "modules"), depth+1)
		}
	}
	modules(filepath.Join(commonDir, "modules"), 0)
	return out
}

// gitConfigValue is the last value of section.key in a git config file,
// read as loosely as gitConfigPaths reads it ("" when absent).
func gitConfigValue(file, section, key string) string {
	val := ""
	gitConfigEntries(file, func(sec, k, v string) {
		if sec == section && k == key {
			val = v
		}
	})
	return val
}

// gitConfigEntries calls fn with each section (its first word, lower
// case), key (lower case) and value (quotes trimmed) of a git config file.
// It is a loose reader: it only needs to find a few keys, not to validate
// the file.
func gitConfigEntries(file string, fn func(section, key, val string)) {
	data, err := os.ReadFile(file)
	if err != nil || len(data) > 1<<20 {
		return
	}
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			section = ""
			if f := strings.Fields(line[1:end]); len(f) > 0 {
				section = strings.ToLower(f[0])
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		fn(section, strings.ToLower(strings.TrimSpace(key)), strings.Trim(strings.TrimSpace(val), `"`))
	}
}

// gitConfigPaths reads the paths a git config file points git at that may
// lie in the working tree: core.hooksPath (hooks run from there) and
// include.path / includeIf.*.path (more configuration).
func gitConfigPaths(file, cwd, home string) []Root {
	var out []Root
	gitConfigEntries(file, func(section, key, val string) {
		var reason string
		switch {
		case section == "core" && key == "hookspath":
			reason = "core.hooksPath in " + file
		case (section == "include" || section == "includeif") && key == "path":
			reason = "included by " + file
		default:
			return
		}
		switch {
		case val == "":
			return
		case strings.HasPrefix(val, "~/"):
			val = filepath.Join(home, val[2:])
		case !filepath.IsAbs(val):
			if reason[0] == 'c' {
				val = filepath.Join(cwd, val) // hooks run in the worktree
			} else {
				val = filepath.Join(filepath.Dir(file), val)
			}
		}
		out = append(out, Root{Path: filepath.Clean(val), Reason: reason})
	})
	return out
}

// denyReadRoots lists the read deny list: the defaults (less removals),
// the agent dir's credential files, and the paths settings add.
func denyReadRoots(rs resolver, home, agentDir string, s Settings) []Root {
	removed := map[string]bool{}
	for _, r := range s.DenyRead {
		if r.remove {
			removed[rs.resolve(r.Path)] = true
		}
	}
	var roots []Root
	add := func(path, reason string) {
		if path == "" {
			return
		}
		if path = rs.resolve(path); !removed[path] {
			roots = append(roots, Root{Path: path, Reason: reason})
		}
	}
	if home != "" {
		for _, p := range defaultDenyRead {
			add(filepath.Join(home, p[2:]), "default")
		}
	}
	if agentDir != "" {
		add(filepath.Join(agentDir, "auth.json"), "pi's API keys")
		add(filepath.Join(agentDir, "models.json"), "pi's API keys")
	}
	for _, r := range s.DenyRead {
		if !r.remove {
			add(r.Path, r.Reason)
		}
	}
	return dedupe(roots)
}

// ErrProtected is wrapped by CheckWrite's error for a protected path.
var ErrProtected = errors.New("a protected path")

// ErrReadDenied is wrapped by CheckRead's errors.
var ErrReadDenied = errors.New("on the sandbox's read deny list")

// protectedBy returns the protected root resolved lies in, if any.
func (p *Policy) protectedBy(resolved string) (Root, bool) {
	for _, r := range p.Protected() {
		if within(resolved, r.Path) {
			return r, true
		}
	}
	return Root{}, false
}

// CheckRead reports whether the file tools may read resolved (absolute,
// symlinks resolved): everywhere but the read deny list, in every mode
// but off.
func (p *Policy) CheckRead(resolved string) error {
	if p.Mode == ModeOff {
		return nil
	}
	for _, r := range p.DenyRead() {
		if within(resolved, r.Path) {
			return fmt.Errorf("cannot read %s: it is %w (%s: credentials commands and tools must not see). Do not try to work around it; if it is needed, tell the user, who can remove it with \"!%s\" in \"denyRead\" under \"sandbox\" in settings, or run with --sandbox off", resolved, ErrReadDenied, r.Reason, r.Path)
		}
	}
	return nil
}

// protectedError is CheckWrite's refusal of a protected path.
func protectedError(resolved string, r Root) error {
	return fmt.Errorf("cannot write %s: it is %w (%s; files that make code run later or set pi's policy are read-only in workspace mode). Do not try to work around it; if the change is needed, tell the user, who can make it, or allow it with \"!%s\" in \"protectedPaths\" under \"sandbox\" in settings, or run with --sandbox off", resolved, ErrProtected, r.Reason, r.Path)
}

// relReadOnlyRe finds a relative path before "Read-only file system", the
// error a protected path's read-only mount gives ("line 1: .pi/x: ...").
var relReadOnlyRe = lazyre.New(`(?i)(?:^|[\s'"])([\w.][^\s:'"]*)['"]?\s*:\s*read-only file system`)

// protectedNote is Explain's note for writes refused on protected paths.
func protectedNote(paths []string) string {
	if len(paths) > 3 {
		paths = append(paths[:3], "…")
	}
	return fmt.Sprintf("The sandbox refused writing %s: a protected path (git hooks and configuration, pi's and other tools' project settings: files that make code run later or set the next run's policy are read-only in workspace mode). Do not try to work around it; if the change is needed, tell the user, who can make it themselves or allow it with \"!PATH\" in \"protectedPaths\" under \"sandbox\" in settings.", strings.Join(paths, ", "))
}

// missingProtected lists the protected paths that do not exist but whose
// directory does: the kernel cannot protect what is not there, so
// [Policy.sweep] looks for them after each command. Paths in a
// directory that is missing too (.git/hooks without .git) are left out:
// moving them would break what a command created as a whole, such as a
// repository from git init.
func missingProtected(roots []Root) []string {
	var out []string
	for _, r := range roots {
		if _, err := os.Lstat(r.Path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if fi, err := os.Stat(filepath.Dir(r.Path)); err == nil && fi.IsDir() {
			out = append(out, r.Path)
		}
	}
	return out
}

// protectedFiles is what each protected path that exists is, just before
// a command runs, for [Policy.sweep] to see afterwards whether the command
// put another file in its place.
type protectedFiles map[string]os.FileInfo

// snapshot records the protected paths that exist now.
func (p *Policy) snapshot() protectedFiles {
	out := protectedFiles{}
	for _, r := range p.Protected() {
		if fi, err := os.Lstat(r.Path); err == nil {
			out[r.Path] = fi
		}
	}
	return out
}

// sweep runs after each confined command. It moves aside each protected
// path that did not exist when the run started and exists now (a command
// created it; the file tools refuse to; left in place it would take effect
// later: .pi/settings.json, .envrc, .git/commondir), and each protected
// path that existed before the command (before) and is now another file:
// the command replaced it, for instance by renaming a directory above it
// and building a new one (the helper pins that chain, so this is a second
// line behind the kernel; without a mount namespace it is the only one).
// It returns a note for the model and the user, or "".
func (p *Policy) sweep(before protectedFiles) string {
	var created, replaced []string
	for _, path := range p.missing() {
		if _, err := os.Lstat(path); err == nil {
			created = append(created, moveAside(path))
		}
	}
	for _, r := range p.Protected() {
		was, ok := before[r.Path]
		if !ok {
			continue
		}
		if now, err := os.Lstat(r.Path); err == nil && !os.SameFile(was, now) {
			replaced = append(replaced, moveAside(r.Path))
		}
	}
	var notes []string
	if len(created) > 0 {
		notes = append(notes, "The sandbox refused creating "+strings.Join(created, ", ")+": protected paths (code that runs later, pi's project settings) cannot be created by commands in workspace mode.")
	}
	if len(replaced) > 0 {
		notes = append(notes, "The sandbox refused replacing "+strings.Join(replaced, ", ")+": the command put another file or directory in place of a protected path (code that runs later, git's configuration and hooks, pi's project settings), so pi moved the new one aside; the original was not restored.")
	}
	if len(notes) == 0 {
		return ""
	}
	return strings.Join(notes, " ") + " Do not try to work around it; if the file is needed, tell the user, who can create it or allow it with \"!PATH\" in \"protectedPaths\" under \"sandbox\" in settings."
}

// SweepAtExit is the last sweep, for pi to call once the processes its
// commands left running are gone: one of them could have created a
// missing protected path (.git/commondir, .envrc) after the last bash
// call's sweep, to take effect when the user next runs git or enters the
// directory. It moves such paths aside and returns a line for the user,
// or "" (always "" when no command could have run).
func (p *Policy) SweepAtExit() string {
	if p == nil || p.paths == nil || !p.paths.made.Load() || !p.Confined() || p.Mode != ModeWorkspace {
		return ""
	}
	var moved []string
	for _, path := range p.missing() {
		if _, err := os.Lstat(path); err == nil {
			moved = append(moved, moveAside(path))
		}
	}
	if len(moved) == 0 {
		return ""
	}
	return "sandbox: a process a command left running created " + strings.Join(moved, ", ") + " after the command's call: protected paths (code that runs later, pi's project settings) cannot be created by commands in workspace mode, so pi moved them aside. Look at them before you use them."
}

// moveAside renames path to PATH.refused-by-pi (or .refused-by-pi.N) and
// says what it did, for sweep's note.
func moveAside(path string) string {
	to := path + ".refused-by-pi"
	for i := 2; ; i++ {
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			break
		}
		to = fmt.Sprintf("%s.refused-by-pi.%d", path, i)
	}
	if err := os.Rename(path, to); err != nil {
		return fmt.Sprintf("%s (could not be moved aside: %v)", path, err)
	}
	return path + " (moved to " + to + ")"
}

// denyReadNote is Explain's note when a failed command's output names a
// path on the read deny list: to the command such a path looks empty or
// missing, which a model would otherwise try to work around.
func (p *Policy) denyReadNote(output string) string {
	var hit []string
	for _, r := range p.DenyRead() {
		if strings.Contains(output, r.Path) {
			hit = append(hit, r.Path)
		}
	}
	if len(hit) == 0 {
		return ""
	}
	return "The sandbox hides " + strings.Join(hit, ", ") + " from commands (the read deny list: credentials), so it looks empty or missing. Do not try to work around it; if it is needed, tell the user, who can run the command themselves or remove it with \"!PATH\" in \"denyRead\" under \"sandbox\" in settings."
}

// namespaceNotice says, once per run, when commands are confined but
// cannot get a mount namespace: the protected paths and the read deny
// list then hold for the file tools only.
func (p *Policy) namespaceNotice() string {
	if !p.Confined() || len(p.Protected()) == 0 && len(p.DenyRead()) == 0 {
		return ""
	}
	return p.namespaceNoticeFor(p.mountNS())
}

// namespaceNoticeFor is namespaceNotice once the probe said ns.
func (p *Policy) namespaceNoticeFor(ns bool) string {
	if !p.Confined() || ns || len(p.Protected()) == 0 && len(p.DenyRead()) == 0 {
		return ""
	}
	return "sandbox: this system does not let pi start commands in a user and mount namespace of their own (unprivileged user namespaces are off), so commands can still write the protected paths (.git/hooks, .pi, ...) and read the read deny list (~/.ssh, ...); the file tools refuse both. Run pi in a container or as a separate user if that matters."
}
