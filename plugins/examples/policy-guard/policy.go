package main

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"github.com/piwasm/pi/abi"
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
	for _, words := range commands(script) {
		words = unwrap(words)
		if len(words) == 0 {
			continue
		}
		for i, w := range words {
			// Redirections: >file, >>file, 2>file, or > followed by the file.
			op := strings.TrimLeft(w, "0123456789&")
			if strings.HasPrefix(op, ">") {
				target := strings.TrimLeft(op, ">|")
				if target == "" && i+1 < len(words) {
					target = words[i+1]
				}
				if g := p.forbidden(target, cwd); g != "" {
					return "redirecting output to " + target + " is forbidden by the team's policy (" + g + ")"
				}
			}
		}
		switch path.Base(words[0]) {
		case "rm":
			if !p.AllowRecursiveDeleteOutside {
				if t := recursiveDeleteOutside(words[1:], cwd); t != "" {
					return "a recursive delete of " + t + ", outside the project, is refused by the team's policy"
				}
			}
		case "git":
			if !p.AllowForcePush && forcePush(words[1:]) {
				return "force pushes are refused by the team's policy; push without --force, or ask a person to do it"
			}
		case "tee":
			for _, w := range words[1:] {
				if !strings.HasPrefix(w, "-") {
					if g := p.forbidden(w, cwd); g != "" {
						return "writing to " + w + " is forbidden by the team's policy (" + g + ")"
					}
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

// recursiveDeleteOutside returns the first target of a recursive rm that
// lies outside cwd, or "".
func recursiveDeleteOutside(args []string, cwd string) string {
	recursive := false
	var targets []string
	flags := true
	for _, a := range args {
		switch {
		case flags && a == "--":
			flags = false
		case flags && (a == "--recursive" || a == "-r" || a == "-R"):
			recursive = true
		case flags && strings.HasPrefix(a, "--"):
		case flags && strings.HasPrefix(a, "-") && len(a) > 1:
			if strings.ContainsAny(a[1:], "rR") {
				recursive = true
			}
		default:
			targets = append(targets, a)
		}
	}
	if !recursive {
		return ""
	}
	for _, t := range targets {
		if outside(t, cwd) {
			return t
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

// forcePush reports whether git's arguments are a push that forces.
func forcePush(args []string) bool {
	i := 0
	// Global options before the subcommand; -C and -c take a value.
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" || args[i] == "-c" {
			i++
		}
		i++
	}
	if i >= len(args) || args[i] != "push" {
		return false
	}
	for _, a := range args[i+1:] {
		switch {
		case a == "--force", a == "--mirror", strings.HasPrefix(a, "--force-with-lease"), a == "--force-if-includes":
			return true
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-") && strings.Contains(a[1:], "f"):
			return true
		case strings.HasPrefix(a, "+"):
			return true
		case strings.Contains(a, ":+"):
			return true
		}
	}
	return false
}

// unwrap drops what runs a command on behalf of another (sudo, env with
// its assignments, xargs, nohup, …) and leading variable assignments.
func unwrap(words []string) []string {
	for len(words) > 0 {
		w := words[0]
		switch {
		case strings.Contains(w, "=") && !strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "="):
			words = words[1:]
		case w == "sudo" || w == "doas" || w == "env" || w == "xargs" || w == "nohup" || w == "time" || w == "exec" || w == "command" || w == "nice":
			words = words[1:]
			// Their own options come before the command.
			for len(words) > 0 && strings.HasPrefix(words[0], "-") {
				words = words[1:]
			}
		default:
			return words
		}
	}
	return words
}

// commands splits a script into simple commands of words: quotes are
// honoured, and ; & | && || newlines, parentheses, braces, $( and
// backquotes separate commands.
//
// It runs on every bash call inside the sandbox, where each allocation
// costs microseconds, so a plain word is a slice of the script, only a
// word with quotes or escapes is built, and the lists are reused from call
// to call (a guest runs one call at a time). The result is valid until the
// next call.
func commands(script string) [][]string {
	cmdBuf = cmdBuf[:0]
	wordBuf = wordBuf[:0]
	cmdStart := 0
	start, inWord, built := 0, false, false
	endWord := func(i int) {
		if !inWord {
			return
		}
		if built {
			wordBuf = append(wordBuf, string(scratch))
		} else {
			wordBuf = append(wordBuf, script[start:i])
		}
		inWord, built = false, false
	}
	endCmd := func(i int) {
		endWord(i)
		if len(wordBuf) > cmdStart {
			cmdBuf = append(cmdBuf, wordBuf[cmdStart:len(wordBuf):len(wordBuf)])
			cmdStart = len(wordBuf)
		}
	}
	// build switches the current word to the scratch buffer, holding what
	// the word had up to i.
	build := func(i int) {
		if !built {
			scratch = scratch[:0]
			if inWord {
				scratch = append(scratch, script[start:i]...)
			}
			built = true
		}
		inWord = true
	}
	for i := 0; i < len(script); i++ {
		c := script[i]
		switch {
		case c == '\'':
			build(i)
			j := strings.IndexByte(script[i+1:], '\'')
			if j < 0 {
				scratch = append(scratch, script[i+1:]...)
				i = len(script)
				break
			}
			scratch = append(scratch, script[i+1:i+1+j]...)
			i += j + 1
		case c == '"':
			build(i)
			for i++; i < len(script) && script[i] != '"'; i++ {
				if script[i] == '\\' && i+1 < len(script) {
					i++
				}
				scratch = append(scratch, script[i])
			}
		case c == '\\' && i+1 < len(script):
			build(i)
			i++
			if script[i] != '\n' {
				scratch = append(scratch, script[i])
			}
		case c == ' ' || c == '\t':
			endWord(i)
		case c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')' || c == '`' || c == '{' || c == '}':
			endCmd(i)
		case c == '$' && i+1 < len(script) && script[i+1] == '(':
			endCmd(i)
			i++
		case c == '#' && !inWord:
			for i < len(script) && script[i] != '\n' {
				i++
			}
			endCmd(i)
		default:
			if !inWord {
				inWord, start = true, i
			}
			if built {
				scratch = append(scratch, c)
			}
		}
	}
	endCmd(len(script))
	return cmdBuf
}

var (
	cmdBuf  [][]string
	wordBuf []string
	scratch []byte
)
