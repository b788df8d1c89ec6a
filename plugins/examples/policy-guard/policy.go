package main

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/shellcmd"
)

// ToolPolicy is the tool_call part of the config. The zero value of each
// switch is the safe one: a config that does not mention them refuses.
type ToolPolicy struct {
	// AllowRecursiveDeleteOutside lets `rm -r` reach outside the project.
	AllowRecursiveDeleteOutside bool `json:"allowRecursiveDeleteOutside"`
	// AllowForcePush lets `git push --force` (and -f, +refspec, …) through.
	AllowForcePush bool `json:"allowForcePush"`
	// ForbiddenPaths are globs relative to the project (abi.MatchGlob: one
	// element per *, ** for any depth, hidden names must be named) that
	// neither write nor edit may touch, nor a bash redirection or tee, nor
	// an MCP server's tool through its path argument.
	ForbiddenPaths []string `json:"forbiddenPaths"`
}

// Check returns why the call must be refused, or "" to let it go on.
//
// Reading a shell script without running it can only go so far: this is a
// tripwire for the usual spellings (through sudo, env, xargs, a pipeline,
// a subshell), not a sandbox. pi's sandbox and permission rules are what
// confine a command; the policy catches mistakes before they get there.
func (p ToolPolicy) Check(tool string, input json.RawMessage, cwd string) string {
	// Paths are compared with '/' (a Windows cwd arrives with '\').
	cwd = strings.ReplaceAll(cwd, `\`, "/")
	if cwd == "" {
		cwd = "/"
	}
	// pi sends the validated arguments, always an object; anything else
	// is refused rather than guessed at.
	if t := bytes.TrimSpace(input); len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return "the call's arguments could not be read, so they could not be checked"
	}
	// One argument is read, without decoding the rest: this runs on every
	// call.
	str := func(k string) string { s, _ := abi.StringField(input, k); return s }
	switch tool {
	case "write", "edit":
		if g := p.forbidden(str("path"), cwd); g != "" {
			return "writing to " + str("path") + " is forbidden by the team's policy (" + g + ")"
		}
	case "bash":
		return p.checkScript(str("command"), cwd)
	default:
		// An MCP server's tool (mcp__<server>__<tool>): pi cannot know
		// whether it writes, so a path argument in a forbidden place is
		// refused whatever the tool does with it.
		if strings.HasPrefix(tool, "mcp__") {
			for _, k := range []string{"path", "file", "filePath", "filename"} {
				if g := p.forbidden(str(k), cwd); g != "" {
					return "the MCP tool " + tool + " may not touch " + str(k) + ": the path is forbidden by the team's policy (" + g + ")"
				}
			}
		}
	}
	return ""
}

func (p ToolPolicy) checkScript(script, cwd string) string {
	if p.AllowRecursiveDeleteOutside && p.AllowForcePush && len(p.ForbiddenPaths) == 0 {
		return "" // nothing to check
	}
	cmds, err := parser.Parse(script)
	if err != nil {
		return "the command does not parse as a shell script, so the team's policy cannot check it; fix the syntax"
	}
	for _, c := range cmds {
		for _, target := range c.Writes {
			if g := p.forbidden(target, cwd); g != "" {
				return "redirecting output to " + target + " is forbidden by the team's policy (" + g + ")"
			}
		}
		if reason := p.checkForm(c.Form, cwd); reason != "" {
			return reason
		}
		for _, f := range c.Inner {
			if reason := p.checkForm(f, cwd); reason != "" {
				return reason
			}
		}
	}
	return ""
}

// parser keeps its buffers from call to call: a guest runs one call at a
// time, and each allocation costs microseconds in the sandbox.
var parser shellcmd.Parser

// checkForm checks one form of a command (as written, through a wrapper,
// or as git resolves it). What is only known when the script runs is
// refused: the policy fails closed.
func (p ToolPolicy) checkForm(f shellcmd.Form, cwd string) string {
	if f.Dynamic() {
		what := "part of the command"
		if len(f.Words) > 0 {
			what = "the program " + f.Words[0]
		}
		return what + " is only known when the script runs (a run-time name, eval, source, or a script piped into a shell), so the team's policy cannot check it; write the commands out"
	}
	switch path.Base(f.Words[0]) {
	case "rm":
		if !p.AllowRecursiveDeleteOutside {
			if t := recursiveDeleteOutside(f, cwd); t != "" {
				return "a recursive delete of " + t + ", outside the project, is refused by the team's policy"
			}
			if f.Open && isRecursive(f.Words[1:]) {
				return "a recursive delete whose targets are only known when it runs (xargs, find) may reach outside the project, which the team's policy refuses; name the targets"
			}
		}
	case "git":
		if !p.AllowForcePush {
			if why := forcePush(f); why != "" {
				return why
			}
		}
	case "tee":
		for _, w := range f.Words[1:] {
			if !strings.HasPrefix(w, "-") {
				if g := p.forbidden(w, cwd); g != "" {
					return "writing to " + w + " is forbidden by the team's policy (" + g + ")"
				}
			}
		}
	}
	return ""
}

// forbidden returns the glob that forbids writing to file, or "".
func (p ToolPolicy) forbidden(file, cwd string) string {
	if file == "" || len(p.ForbiddenPaths) == 0 {
		return ""
	}
	file = strings.TrimPrefix(file, "@")
	if !path.IsAbs(file) {
		file = path.Join(cwd, file)
	}
	rel, ok := inside(path.Clean(file), cwd)
	if !ok {
		return ""
	}
	for _, g := range p.ForbiddenPaths {
		if abi.MatchGlob(g, rel) {
			return g
		}
	}
	return ""
}

// inside returns p relative to root when p is root or below it.
func inside(p, root string) (string, bool) {
	root = path.Clean(root)
	if p == root {
		return ".", true
	}
	if root == "/" {
		return strings.TrimPrefix(p, "/"), true
	}
	rel, ok := strings.CutPrefix(p, root+"/")
	return rel, ok
}

// isRecursive reports whether rm's arguments ask for a recursive delete.
func isRecursive(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--recursive" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], "rR") {
			return true
		}
	}
	return false
}

// recursiveDeleteOutside returns the first target of a recursive rm that
// lies outside cwd, or may (a target only known at run time), or "".
func recursiveDeleteOutside(f shellcmd.Form, cwd string) string {
	if !isRecursive(f.Words[1:]) {
		return ""
	}
	flags := true
	for i, a := range f.Words[1:] {
		switch {
		case flags && a == "--":
			flags = false
		case flags && strings.HasPrefix(a, "-") && len(a) > 1:
		default:
			if !f.Lit[i+1] || outside(a, cwd) {
				return a
			}
		}
	}
	return ""
}

// outside reports whether a path as written in a script leaves cwd: the
// home directory in any spelling, a variable (its value is unknown), or a
// path that cleans to somewhere outside.
func outside(t, cwd string) bool {
	switch {
	case t == "~" || strings.HasPrefix(t, "~/") || strings.HasPrefix(t, "~"):
		return true
	case strings.Contains(t, "$"):
		return true
	}
	if !path.IsAbs(t) {
		t = path.Join(cwd, t)
	}
	_, in := inside(path.Clean(t), cwd)
	return !in
}

// forcePush says why git's form is, or could be, a push that forces; ""
// when it is not. Global options are skipped; a refspec or an option only
// known when the script runs, words xargs may add, and a subcommand that
// is not git's own (an alias from a git configuration file) could force.
func forcePush(f shellcmd.Form) string {
	const refused = "force pushes are refused by the team's policy; push without --force, or ask a person to do it"
	i := 1
	// Global options before the subcommand; -C and -c take a value.
	for i < len(f.Words) && strings.HasPrefix(f.Words[i], "-") {
		if f.Words[i] == "-C" || f.Words[i] == "-c" || f.Words[i] == "--config-env" {
			i++
		}
		i++
	}
	if i >= len(f.Words) {
		if f.Open && f.CheckOnly {
			return "git's subcommand here is not one of git's own commands and could be an alias that force-pushes, which the team's policy refuses; spell the git command out"
		}
		return ""
	}
	if f.Words[i] != "push" {
		return ""
	}
	for j, a := range f.Words[i+1:] {
		if !f.Lit[i+1+j] {
			return "the push's arguments are only known when the script runs (" + a + "), so a force push cannot be ruled out; the team's policy refuses it: write them out"
		}
		switch {
		case a == "--force", a == "--mirror", strings.HasPrefix(a, "--force-with-lease"), a == "--force-if-includes":
			return refused
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && strings.Contains(a[1:], "f"):
			return refused
		case strings.HasPrefix(a, "+"):
			return refused
		case strings.Contains(a, ":+"):
			return refused
		}
	}
	if f.Open {
		return "words only known when the script runs are added to this push (xargs), so a force push cannot be ruled out; the team's policy refuses it"
	}
	return ""
}
