package shellcmd

import "strings"

// wrapper describes a command that runs another: which of its options take
// a value, and how many plain arguments precede the command.
type wrapper struct {
	valueOpts  string // short options that take a value
	longValue  []string
	positional int  // plain arguments before the command (timeout's DURATION, taskset's mask)
	assigns    bool // NAME=VALUE words may precede the command (env)
	privileged bool
	open       bool // appends words from its input (xargs)
	// noRun are options that make it not run a command (command -v,
	// taskset -p, chrt -p).
	noRun []string
}

var wrappers = map[string]wrapper{
	"env":        {valueOpts: "uCSP", longValue: []string{"--unset", "--chdir", "--split-string", "--default-signal", "--ignore-signal", "--block-signal"}, assigns: true},
	"sudo":       {valueOpts: "ughpCDrtUTR", longValue: []string{"--user", "--group", "--host", "--prompt", "--close-from", "--chdir", "--role", "--type", "--other-user", "--command-timeout", "--chroot"}, privileged: true, assigns: true},
	"doas":       {valueOpts: "uC", privileged: true},
	"nice":       {valueOpts: "n", longValue: []string{"--adjustment"}},
	"time":       {valueOpts: "fo", longValue: []string{"--format", "--output"}},
	"command":    {noRun: []string{"-v", "-V"}},
	"builtin":    {},
	"nohup":      {},
	"exec":       {valueOpts: "a"},
	"timeout":    {valueOpts: "sk", longValue: []string{"--signal", "--kill-after"}, positional: 1},
	"xargs":      {valueOpts: "EeIiLlnPsda", longValue: []string{"--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--delimiter", "--arg-file", "--process-slot-var"}, open: true},
	"stdbuf":     {valueOpts: "ioe", longValue: []string{"--input", "--output", "--error"}},
	"ionice":     {valueOpts: "cnp", longValue: []string{"--class", "--classdata", "--pid"}, noRun: []string{"-p", "--pid"}},
	"setsid":     {},
	"taskset":    {positional: 1, noRun: []string{"-p", "--pid"}},
	"chrt":       {valueOpts: "T", positional: 1, noRun: []string{"-p", "--pid", "-m", "--max"}},
	"unbuffer":   {},
	"flock":      {valueOpts: "wEc", longValue: []string{"--timeout", "--conflict-exit-code", "--command"}, positional: 1},
	"caffeinate": {valueOpts: "tw"},
	"prlimit":    {valueOpts: "p", longValue: []string{"--pid", "--output"}},
	"firejail":   {},
	"sg":         {positional: 1},
}

// unwrap peels wrappers off f, returning each command they run and the
// normal forms of each (base name, git resolved).
func unwrap(f Form) []Form {
	var out []Form
	out = append(out, normal(f)...)
	words, lit := f.Words, f.Lit
	privileged, open := false, false
	for depth := 0; depth < maxDepth; depth++ {
		if len(words) == 0 || !lit[0] {
			return out
		}
		name := base(words[0])
		w, ok := wrappers[name]
		if !ok {
			return out
		}
		i := 1
		var split string
		splitLit := true
	options:
		for i < len(words) {
			a := words[i]
			if contains(w.noRun, a) {
				return out // a lookup or an existing process, not a run
			}
			switch {
			case a == "--":
				i++
				break options
			case name == "nice" && len(a) > 1 && a[0] == '-' && isNumber(a[1:]):
				i++
			case strings.HasPrefix(a, "--"):
				i++
				key, val, hasVal := strings.Cut(a, "=")
				if name == "env" && key == "--split-string" {
					switch {
					case hasVal:
						split = val
						splitLit = lit[i-1]
					case i < len(words):
						split, splitLit = words[i], lit[i]
						i++
					}
					continue
				}
				if !hasVal && contains(w.longValue, key) {
					i++
				}
			case len(a) > 1 && a[0] == '-':
				i++
				// A short cluster: a value option takes the rest of the
				// word, or the next word when it ends the cluster.
				for j := 1; j < len(a); j++ {
					if strings.IndexByte(w.valueOpts, a[j]) < 0 {
						continue
					}
					val, valLit := a[j+1:], lit[i-1]
					if j == len(a)-1 && i < len(words) {
						val, valLit = words[i], lit[i]
						i++
					}
					if name == "env" && a[j] == 'S' {
						split, splitLit = val, valLit
					}
					if name == "flock" && a[j] == 'c' {
						// flock -c runs a shell string: parsed by nested.
						return out
					}
					break
				}
			default:
				break options
			}
		}
		if split != "" {
			// env -S splits its value into words that come before the
			// remaining arguments.
			if !splitLit {
				return append(out, Unknown)
			}
			sw := splitWords(split)
			nw := append(append([]string(nil), sw...), words[i:]...)
			nl := append(make([]bool, 0, len(nw)), lit[i:]...)
			nl = append(make([]bool, len(sw)), nl...)
			for k := range sw {
				nl[k] = true
			}
			words, lit, i = nw, nl, 0
		}
		if w.assigns {
			for i < len(words) && isAssign(words[i]) {
				i++
			}
		}
		i += w.positional
		if i >= len(words) {
			return out
		}
		privileged = privileged || w.privileged
		open = open || w.open
		words, lit = words[i:], lit[i:]
		in := Form{Words: words, Lit: lit, Privileged: privileged, Open: open}
		out = append(out, in)
		for _, n := range normal(in) {
			out = append(out, n)
		}
	}
	return append(out, Unknown)
}

// normal returns the normal forms of f: its program's base name when it
// is named by a path, git-NAME as git NAME, and git resolved.
func normal(f Form) []Form {
	if f.Dynamic() {
		return nil
	}
	var out []Form
	if b := base(f.Words[0]); b != f.Words[0] && b != "" {
		n := f
		n.Words = append([]string{b}, f.Words[1:]...)
		n.CheckOnly = true
		out = append(out, n)
		f = n
	}
	if sub, ok := strings.CutPrefix(f.Words[0], "git-"); ok && sub != "" {
		// git runs its subcommand NAME as the program git-NAME (in
		// git-core, or on PATH for external ones such as git-lfs), and
		// that program can be run directly: /usr/lib/git-core/git-push
		// is git push, without git's global options.
		n := f
		n.Words = append([]string{"git", sub}, f.Words[1:]...)
		n.Lit = append([]bool{true, f.Lit[0]}, f.Lit[1:]...)
		n.CheckOnly = true
		out = append(out, n)
	}
	return append(out, gitForms(f)...)
}

// splitWords splits env -S's string as env does: on white space, with
// single and double quotes and backslashes.
func splitWords(s string) []string {
	var out []string
	var b strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote, in = c, true
		case quote != '\'' && c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case quote == 0 && (c == ' ' || c == '\t' || c == '\n'):
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

func isAssign(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq > 1 && w[eq-1] == '+' {
		eq-- // NAME+=value appends
	}
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// skipOptions returns the index of the first word after a command's
// options; short options in valueOpts and long ones in longValue take a
// value.
func skipOptions(ws []string, _ string, valueOpts string, longValue, _ []string) int {
	i := 1
	for i < len(ws) {
		a := ws[i]
		if a == "--" {
			return i + 1
		}
		if len(a) < 2 || a[0] != '-' {
			return i
		}
		i++
		if strings.HasPrefix(a, "--") {
			if !strings.Contains(a, "=") && contains(longValue, a) {
				i++
			}
			continue
		}
		if strings.IndexByte(valueOpts, a[len(a)-1]) >= 0 {
			i++
		}
	}
	return i
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
