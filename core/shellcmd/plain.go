package shellcmd

import "strings"

// The fast path. Most scripts a model writes are plain: words of ordinary
// characters joined by spaces, with ;, &, |, && and || between commands.
// For such a script splitting at those characters is exactly what bash
// does, so the shell parser (whose allocations cost hundreds of
// microseconds per call inside an extension's sandbox) is not needed.
// Anything else (quotes, escapes, expansions, redirections, globs,
// grouping, comments, reserved words) goes to the parser.

// plainByte marks the bytes a plain script may contain.
var plainByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range " \t\n_./:=,@%+-&|;" {
		t[c] = true
	}
	return t
}()

// reserved are bash's reserved words: in command position they make a
// script more than a list of simple commands.
var reserved = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true, "do": true, "done": true,
	"for": true, "while": true, "until": true, "case": true, "esac": true, "in": true,
	"function": true, "select": true, "time": true, "coproc": true,
}

// plain splits script into simple commands when it is plain, reporting
// for each whether a pipe feeds it; ok is false when the parser is needed.
func (p *parser) plain(script string, depth int) bool {
	for i := 0; i < len(script); i++ {
		if !plainByte[script[i]] {
			return false
		}
	}
	// The words and commands go into buffers kept from call to call.
	p.plainWords, p.plainCmds = p.plainWords[:0], p.plainCmds[:0]
	start := 0 // first word of the current command
	cur := func() []string { return p.plainWords[start:] }
	piped, nextPiped := false, false
	needCmd := false // after &&, || or |: a command must follow
	end := func() bool {
		// Leading NAME=value words are assignments, not the command.
		i := start
		for i < len(p.plainWords) && isAssign(p.plainWords[i]) {
			i++
		}
		if i < len(p.plainWords) {
			if reserved[p.plainWords[i]] {
				return false
			}
			p.plainCmds = append(p.plainCmds, plainCmd{i, len(p.plainWords), piped})
		}
		start = len(p.plainWords)
		piped = nextPiped
		nextPiped = false
		return true
	}
	for i := 0; i < len(script); {
		c := script[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '\n' && needCmd:
			i++ // the list goes on on the next line
		case c == '\n' && len(cur()) == 0:
			i++
		case c == '\n' || c == ';':
			if len(cur()) == 0 || needCmd || !end() {
				return false
			}
			i++
		case c == '&' || c == '|':
			op := script[i : i+1]
			if i+1 < len(script) && (script[i+1] == '&' || script[i+1] == '|') {
				op = script[i : i+2]
			}
			if len(cur()) == 0 || needCmd {
				return false // an operator with no command before it
			}
			needCmd = op != "&"
			if op == "||" || op == "&&" || op == "&" {
				if !end() {
					return false
				}
			} else { // | or |&
				if !end() {
					return false
				}
				piped = true
			}
			i += len(op)
		default:
			j := i
			for j < len(script) && !strings.ContainsRune(" \t\n;&|", rune(script[j])) {
				j++
			}
			p.plainWords = append(p.plainWords, script[i:j])
			needCmd = false
			i = j
		}
	}
	if needCmd {
		return false // an operator with nothing after it
	}
	if !end() {
		return false
	}
	for len(p.trues) < len(p.plainWords) {
		p.trues = append(p.trues, true)
	}
	// Nested scripts parsed below use the same buffers: take this
	// script's commands out first.
	words, cmds := p.plainWords, p.plainCmds
	p.plainWords, p.plainCmds = nil, nil
	defer func() {
		// Kept for the next script: the commands returned alias words,
		// which a Parser's contract allows until its next call.
		if depth == 0 {
			p.plainWords, p.plainCmds = words[:0], cmds[:0]
		}
	}()
	var prev []string
	for _, c := range cmds {
		ws := words[c.start:c.end:c.end]
		fd := feed{}
		if c.piped {
			fd = feedFromWords(prev)
		}
		p.command(Form{Words: ws, Lit: p.trues[:len(ws):len(ws)]}, nil, fd, c.piped, depth)
		prev = ws
	}
	return true
}

// plainCmd is a command of a plain script: its words in the word buffer,
// and whether a pipe feeds it.
type plainCmd struct {
	start, end int
	piped      bool
}
