package permission

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Command is one simple command found in a script.
type Command struct {
	// Words are the command's words, unquoted where they are literal; a
	// word with expansions ($VAR, $(...), globs are literal) is kept as
	// written.
	Words []string
	// Dynamic is set when the command name itself is not literal ($CMD,
	// $(which rm)), so no rule can know what runs.
	Dynamic bool
	// Inner are the commands reached by unwrapping wrappers (env, sudo,
	// nice, time, command, nohup, timeout, exec, xargs, stdbuf, doas),
	// outermost first. Privileged marks those reached through sudo or doas.
	Inner []Inner
}

// Inner is a command a wrapper runs.
type Inner struct {
	Words      []string
	Privileged bool
	Dynamic    bool
	// CheckOnly marks a normal form that deny and ask rules see but allow
	// rules do not: git with its global options taken out ("git -C dir
	// push" is also "git push"), since options such as -c can change what
	// the command runs.
	CheckOnly bool
}

// maxDepth bounds recursion into bash -c and eval strings.
const maxDepth = 8

// Commands parses script as bash and returns every simple command in it,
// in source order: the parts of pipelines and lists, subshells, command
// and process substitutions, function bodies, the strings given to bash -c
// or sh -c, and eval's arguments. A script that does not parse yields an
// error (and no commands).
func Commands(script string) ([]Command, error) {
	return commands(script, 0)
}

func commands(script string, depth int) ([]Command, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(script), "")
	if err != nil {
		return nil, err
	}
	var out []Command
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		c := Command{}
		lit := make([]bool, len(call.Args))
		for i, w := range call.Args {
			s, ok := literal(w)
			lit[i] = ok
			c.Words = append(c.Words, s)
		}
		c.Dynamic = !lit[0]
		c.Inner = unwrap(c.Words, lit)
		out = append(out, c)
		if depth < maxDepth {
			out = append(out, nested(c.Words, lit, depth)...)
			for _, in := range c.Inner {
				out = append(out, nested(in.Words, lit[len(lit)-len(in.Words):], depth)...)
			}
		}
		return true
	})
	return out, nil
}

// nested parses the scripts a command hands to a shell: bash -c STR,
// sh -c STR (and zsh, dash, ksh), eval ARGS. Only literal strings can be
// parsed; others stay opaque.
func nested(words []string, lit []bool, depth int) []Command {
	if len(words) == 0 {
		return nil
	}
	switch base(words[0]) {
	case "bash", "sh", "zsh", "dash", "ksh":
		for i := 1; i < len(words); i++ {
			w := words[i]
			if !lit[i] || !strings.HasPrefix(w, "-") || w == "--" {
				return nil
			}
			if strings.Contains(w, "c") && !strings.HasPrefix(w, "--") && i+1 < len(words) && lit[i+1] {
				cs, _ := commands(words[i+1], depth+1)
				return cs
			}
		}
	case "eval":
		for i := 1; i < len(words); i++ {
			if !lit[i] {
				return nil
			}
		}
		cs, _ := commands(strings.Join(words[1:], " "), depth+1)
		return cs
	}
	return nil
}

func base(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// literal returns the word's value after quote removal when it has no
// expansions, else the word as written and false.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	if litParts(&b, w.Parts, false) {
		return b.String(), true
	}
	var p strings.Builder
	_ = syntax.NewPrinter().Print(&p, w)
	return p.String(), false
}

func litParts(b *strings.Builder, parts []syntax.WordPart, inDouble bool) bool {
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value, inDouble))
		case *syntax.SglQuoted:
			if x.Dollar {
				return false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar || !litParts(b, x.Parts, true) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// unescape removes backslash quoting the way bash does outside quotes
// (every backslash escapes the next character; backslash-newline joins
// lines) and inside double quotes (only $ ` " \ and newline are escaped).
func unescape(s string, inDouble bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !inDouble || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// wrapper describes a command that runs another: which of its options take
// a value, and how many plain arguments precede the command.
type wrapper struct {
	valueOpts  string // short options that take a value
	longValue  []string
	positional int  // plain arguments before the command (timeout's DURATION)
	assigns    bool // NAME=VALUE words may precede the command (env)
	privileged bool
}

var wrappers = map[string]wrapper{
	"env":     {valueOpts: "uCS", longValue: []string{"--unset", "--chdir", "--split-string"}, assigns: true},
	"sudo":    {valueOpts: "ughpCDrtUT", longValue: []string{"--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user", "--command-timeout"}, privileged: true},
	"doas":    {valueOpts: "uC", privileged: true},
	"nice":    {valueOpts: "n", longValue: []string{"--adjustment"}},
	"time":    {valueOpts: "fo", longValue: []string{"--format", "--output"}},
	"command": {},
	"nohup":   {},
	"exec":    {valueOpts: "a"},
	"timeout": {valueOpts: "sk", longValue: []string{"--signal", "--kill-after"}, positional: 1},
	"xargs":   {valueOpts: "EeIiLlnPsda", longValue: []string{"--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--delimiter", "--arg-file"}},
	"stdbuf":  {valueOpts: "ioe", longValue: []string{"--input", "--output", "--error"}},
	"ionice":  {valueOpts: "cnp", longValue: []string{"--class", "--classdata", "--pid"}},
}

// unwrap peels wrappers off words, returning each inner command.
func unwrap(words []string, lit []bool) []Inner {
	var out []Inner
	privileged := false
	for len(out) < maxDepth {
		if len(words) == 0 || !lit[0] {
			return out
		}
		name := base(words[0])
		w, ok := wrappers[name]
		if !ok {
			if g := gitWithoutGlobals(words); g != nil {
				out = append(out, Inner{Words: g, Privileged: privileged, CheckOnly: true})
			}
			return out
		}
		if name == "command" && len(words) > 1 && (words[1] == "-v" || words[1] == "-V") {
			return out // a lookup, not a run
		}
		i := 1
		for i < len(words) {
			a := words[i]
			if a == "--" {
				i++
				break
			}
			if len(a) > 1 && a[0] == '-' && !(name == "nice" && isNumber(a[1:])) {
				i++
				if strings.HasPrefix(a, "--") {
					if !strings.Contains(a, "=") && contains(w.longValue, a) {
						i++
					}
					continue
				}
				// A short cluster: a value option takes the rest of the
				// word, or the next word when it ends the cluster.
				for j := 1; j < len(a); j++ {
					if strings.IndexByte(w.valueOpts, a[j]) >= 0 {
						if j == len(a)-1 {
							i++
						}
						break
					}
				}
				continue
			}
			if name == "nice" && len(a) > 1 && a[0] == '-' {
				i++
				continue
			}
			break
		}
		if w.assigns {
			for i < len(words) && strings.Contains(words[i], "=") && !strings.HasPrefix(words[i], "=") {
				i++
			}
		}
		i += w.positional
		if i >= len(words) {
			return out
		}
		privileged = privileged || w.privileged
		words, lit = words[i:], lit[i:]
		out = append(out, Inner{Words: words, Privileged: privileged, Dynamic: !lit[0]})
	}
	return out
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// gitValueOpts are git's global options that take the next word as value.
var gitValueOpts = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--list-cmds", "--attr-source"}

// gitWithoutGlobals returns "git SUBCOMMAND ARGS..." for a git command
// with global options before its subcommand (git -C dir push, git -c k=v
// --no-pager push), so a rule written for git push sees it; nil when there
// are none.
func gitWithoutGlobals(words []string) []string {
	if len(words) < 2 || base(words[0]) != "git" {
		return nil
	}
	i := 1
	for i < len(words) {
		a := words[i]
		if a == "" || a[0] != '-' {
			break
		}
		i++
		if contains(gitValueOpts, a) {
			i++
		}
	}
	if i == 1 || i >= len(words) {
		return nil
	}
	return append([]string{words[0]}, words[i:]...)
}
