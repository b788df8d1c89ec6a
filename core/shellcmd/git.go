package shellcmd

import (
	"slices"
	"strings"
)

// gitValueOpts are git's global options that take the next word as value.
var gitValueOpts = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--list-cmds", "--attr-source"}

// gitInvocation is a git command split at its subcommand.
type gitInvocation struct {
	sub     int               // index of the subcommand in the words; len(words) if none
	configs map[string]string // -c and --config-env settings, keys lower-cased
	unknown map[string]bool   // settings whose value is only known at run time
}

func parseGit(f Form) (gitInvocation, bool) {
	if f.Dynamic() || base(f.Words[0]) != "git" {
		return gitInvocation{}, false
	}
	g := gitInvocation{sub: len(f.Words)}
	set := func(kv string, lit, fromEnv bool) {
		k, v, _ := strings.Cut(kv, "=")
		k = strings.ToLower(k)
		if g.configs == nil {
			g.configs, g.unknown = map[string]string{}, map[string]bool{}
		}
		g.configs[k] = v
		if !lit || fromEnv {
			g.unknown[k] = true
		}
	}
	for i := 1; i < len(f.Words); i++ {
		a := f.Words[i]
		if a == "" || a[0] != '-' {
			g.sub = i
			break
		}
		key, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "-c" || a == "--config-env":
			if i+1 < len(f.Words) {
				i++
				set(f.Words[i], f.Lit[i], a == "--config-env")
			}
		case key == "--config-env" && hasVal:
			set(val, f.Lit[i], true)
		case strings.HasPrefix(a, "-c") && len(a) > 2:
			set(a[2:], f.Lit[i], false)
		case contains(gitValueOpts, a):
			i++
		}
	}
	return g, true
}

// gitForms returns the forms git really runs: without its global options,
// with a -c alias resolved, with pushes' configured refspecs, and, when a
// setting or the subcommand could make it run anything, a form that could
// be anything. All are check-only.
func gitForms(f Form) []Form {
	g, ok := parseGit(f)
	if !ok {
		return nil
	}
	var out []Form
	for k := range g.configs {
		if runsProgram(k) {
			out = append(out, Unknown)
			break
		}
	}
	if g.sub >= len(f.Words) {
		return out
	}
	if g.sub == 1 && g.configs == nil && f.Lit[1] && isGitCommand(f.Words[1]) {
		return out // plain git: nothing to resolve
	}
	words := append([]string{"git"}, f.Words[g.sub:]...)
	lit := append([]bool{true}, f.Lit[g.sub:]...)
	changed := g.sub > 1
	for depth := 0; depth < maxDepth && len(words) > 1; depth++ {
		if !lit[1] {
			return append(out, Form{Words: []string{"git"}, Lit: []bool{true}, Open: true, CheckOnly: true})
		}
		v, isAlias := g.configs["alias."+strings.ToLower(words[1])]
		if !isAlias {
			break
		}
		if g.unknown["alias."+strings.ToLower(words[1])] {
			return append(out, Form{Words: []string{"git"}, Lit: []bool{true}, Open: true, CheckOnly: true})
		}
		if strings.HasPrefix(v, "!") {
			return out // a shell alias: nested parses it
		}
		aw := splitWords(v)
		nw := append(append([]string{"git"}, aw...), words[2:]...)
		nl := make([]bool, len(nw))
		for i := range nl {
			nl[i] = i < 1+len(aw) || lit[i-len(aw)+1]
		}
		words, lit, changed = nw, nl, true
	}
	if changed {
		out = append(out, Form{Words: words, Lit: lit, Privileged: f.Privileged, Open: f.Open, CheckOnly: true})
	}
	if len(words) > 1 && words[1] == "push" {
		// Refspecs from -c remote.NAME.push are pushed as if written.
		var specs []string
		for k, v := range g.configs {
			if strings.HasPrefix(k, "remote.") && strings.HasSuffix(k, ".push") {
				specs = append(specs, v)
			}
		}
		if len(specs) > 0 {
			nw := append(append([]string(nil), words...), specs...)
			nl := append(append([]bool(nil), lit...), make([]bool, len(specs))...)
			for i := len(lit); i < len(nl); i++ {
				nl[i] = true
			}
			out = append(out, Form{Words: nw, Lit: nl, Privileged: f.Privileged, Open: f.Open, CheckOnly: true})
		}
	}
	if len(words) > 1 && !isGitCommand(words[1]) {
		// Not a git command: an alias from a configuration file (which
		// may name any subcommand) or an external git-* program.
		out = append(out, Form{Words: []string{"git"}, Lit: []bool{true}, Open: true, CheckOnly: true})
	}
	return out
}

// gitShellAlias returns the shell script of a -c alias starting with "!"
// used as f's subcommand.
func gitShellAlias(f Form) (string, bool) {
	g, ok := parseGit(f)
	if !ok || g.sub >= len(f.Words) || !f.Lit[g.sub] {
		return "", false
	}
	k := "alias." + strings.ToLower(f.Words[g.sub])
	v, ok := g.configs[k]
	if !ok || g.unknown[k] || !strings.HasPrefix(v, "!") {
		return "", false
	}
	return v[1:] + " " + strings.Join(f.Words[g.sub+1:], " "), true
}

// runsProgram reports whether a git setting names a program or a file of
// settings, so a -c with it can make any git command run anything.
func runsProgram(key string) bool {
	sec, rest, _ := strings.Cut(key, ".")
	name := rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		name = rest[i+1:]
	}
	switch sec {
	case "core":
		switch name {
		case "sshcommand", "pager", "editor", "fsmonitor", "hookspath", "askpass", "gitproxy", "alternaterefscommand":
			return true
		}
	case "sequence":
		return name == "editor"
	case "diff":
		return name == "external" || name == "textconv" || name == "command"
	case "merge":
		return name == "driver"
	case "mergetool", "difftool", "man", "browser":
		return name == "cmd" || name == "path"
	case "filter":
		return name == "clean" || name == "smudge" || name == "process"
	case "credential":
		return name == "helper"
	case "gpg":
		return name == "program"
	case "uploadpack":
		return name == "packobjectshook"
	case "remote":
		return name == "receivepack" || name == "uploadpack" || name == "proxy"
	case "include", "includeif":
		return name == "path"
	case "protocol":
		return name == "allow"
	case "pager", "sendemail", "web", "trailer", "url":
		return true
	}
	return false
}

// gitCommands are git's own commands, which aliases cannot replace,
// sorted: a constant table the linker lays out, where a map was built
// in every pi process's package initialisation (20 KB, ~1% of a `pi -p`
// run's CPU).
var gitCommands = [...]string{
	"add", "am", "annotate", "apply", "archive", "bisect", "blame", "branch", "bugreport", "bundle",
	"cat-file", "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout",
	"checkout-index", "cherry", "cherry-pick", "citool", "clean", "clone", "column", "commit",
	"commit-graph", "commit-tree", "config", "count-objects", "credential", "describe", "diagnose",
	"diff", "diff-files", "diff-index", "diff-tree", "difftool", "fast-export", "fast-import",
	"fetch", "fetch-pack", "filter-branch", "fmt-merge-msg", "for-each-ref", "for-each-repo",
	"format-patch", "fsck", "gc", "get-tar-commit-id", "grep", "gui", "hash-object", "help",
	"index-pack", "init", "instaweb", "interpret-trailers", "lfs", "log", "ls-files", "ls-remote",
	"ls-tree", "mailinfo", "mailsplit", "maintenance", "merge", "merge-base", "merge-file",
	"merge-index", "merge-tree", "mergetool", "mktag", "mktree", "multi-pack-index", "mv", "name-rev",
	"notes", "pack-objects", "pack-refs", "patch-id", "prune", "prune-packed", "pull", "push",
	"range-diff", "read-tree", "rebase", "reflog", "refs", "remote", "repack", "replace", "replay",
	"request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm",
	"send-email", "send-pack", "shortlog", "show", "show-branch", "show-index", "show-ref",
	"sparse-checkout", "stage", "stash", "status", "stripspace", "submodule", "switch",
	"symbolic-ref", "tag", "unpack-file", "unpack-objects", "update-index", "update-ref",
	"update-server-info", "var", "verify-commit", "verify-pack", "verify-tag", "version",
	"whatchanged", "worktree", "write-tree",
}

// isGitCommand reports whether name is one of git's own commands.
func isGitCommand(name string) bool {
	_, ok := slices.BinarySearch(gitCommands[:], name)
	return ok
}
