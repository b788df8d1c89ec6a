package shellcmd

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Form is one view of a command: its words as written, or what a wrapper
// or an alias runs.
type Form struct {
	// Words are the command's words after quote removal and brace
	// expansion where they are literal; a word with an expansion ($VAR,
	// $(...)) is kept as written.
	Words []string
	// Lit marks the words known before the script runs (one per word).
	Lit []bool
	// Open means more words, unknown before the script runs, may follow
	// (xargs appends its input). A form with no words that is Open could
	// be any command at all.
	Open bool
	// Privileged marks a command reached through sudo, doas or su.
	Privileged bool
	// CheckOnly marks a normal form (a base name for a path, git without
	// its global options, an alias resolved) that rules refusing or asking
	// about a command see but rules allowing one do not: it is how the
	// command is likely to behave, not what was written.
	CheckOnly bool
}

// Dynamic reports whether the program the form runs is not known
// statically (its name is built at run time, or it could be anything).
func (f Form) Dynamic() bool { return len(f.Words) == 0 || !f.Lit[0] }

// Unknown is a form that could be any command.
var Unknown = Form{Open: true}

// Command is one simple command of a script.
type Command struct {
	Form
	// Inner are the other forms of the command: what wrappers run
	// (outermost first) and normal forms. A form that could be anything
	// (Unknown) is among them when the command runs a script pi cannot
	// read: eval of a run-time string, source, a shell reading an unknown
	// script.
	Inner []Form
	// Writes are the targets of the command's output redirections
	// (>, >>, >|, &>, &>>), literal or as written.
	Writes []string
}

// Forms returns the command's form and its inner forms.
func (c Command) Forms() []Form {
	return append([]Form{c.Form}, c.Inner...)
}

// maxDepth bounds recursion into nested scripts and wrappers.
const maxDepth = 8

// Parse returns every simple command of script in source order. A script
// that does not parse yields the error and a single command that could be
// anything ([Unknown]), so a caller that ignores the error still fails
// closed.
func Parse(script string) ([]Command, error) {
	var p Parser
	return p.Parse(script)
}

// Parser is [Parse] with its buffers kept from call to call, for a caller
// that parses many scripts one at a time (an extension's guest, where each
// allocation is expensive). The zero value is ready; the commands it
// returns are valid until its next call. It is not safe for concurrent use.
type Parser struct {
	p parser
}

// Parse is [Parse] on p's buffers.
func (p *Parser) Parse(script string) ([]Command, error) {
	p.p.out = p.p.out[:0]
	clear(p.p.aliases)
	if err := p.p.script(script, 0); err != nil {
		p.p.out = append(p.p.out[:0], Command{Form: Unknown})
		return p.p.out, err
	}
	return p.p.out, nil
}

type parser struct {
	sp  *syntax.Parser
	out []Command
	// aliases defined by the script (alias NAME=VALUE), which bash expands
	// in later lines when expand_aliases is set: assumed set.
	aliases map[string]string
	// Buffers of the fast path (plain.go).
	plainWords []string
	plainCmds  []plainCmd
	trues      []bool
	// noPlain turns the fast path off (for tests that compare the two).
	noPlain bool
}

// feed is what a shell reads on its standard input: a script known
// statically (known), or something else.
type feed struct {
	text  string
	known bool
}

func (p *parser) script(src string, depth int) error {
	if !p.noPlain && p.plain(src, depth) {
		return nil
	}
	if depth == 0 && p.sp == nil {
		p.sp = syntax.NewParser(syntax.Variant(syntax.LangBash))
	}
	sp := p.sp
	if depth > 0 {
		// A nested script is parsed while the outer one is being walked;
		// the outer parser's nodes must stay intact.
		sp = syntax.NewParser(syntax.Variant(syntax.LangBash))
	}
	f, err := sp.Parse(strings.NewReader(src), "")
	if err != nil {
		return err
	}
	p.file(f, depth)
	return nil
}

func (p *parser) file(f *syntax.File, depth int) {
	var feeds map[*syntax.CallExpr]feed
	var writes map[*syntax.CallExpr][]string
	setFeed := func(c *syntax.CallExpr, f feed) {
		if feeds == nil {
			feeds = map[*syntax.CallExpr]feed{}
		}
		feeds[c] = f
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				if call, ok := x.Y.Cmd.(*syntax.CallExpr); ok {
					setFeed(call, pipeFeed(x.X))
				}
			}
		case *syntax.Stmt:
			call, ok := x.Cmd.(*syntax.CallExpr)
			if !ok {
				return true
			}
			for _, r := range x.Redirs {
				switch r.Op {
				case syntax.Hdoc, syntax.DashHdoc:
					if r.Hdoc != nil {
						s, ok := hdocText(r.Hdoc)
						setFeed(call, feed{s, ok})
					}
				case syntax.WordHdoc:
					ws, lit := words([]*syntax.Word{r.Word})
					setFeed(call, feed{strings.Join(ws, " "), allLit(lit)})
				case syntax.RdrIn:
					setFeed(call, feed{})
				case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll:
					if r.Word != nil {
						ws, _ := words([]*syntax.Word{r.Word})
						if writes == nil {
							writes = map[*syntax.CallExpr][]string{}
						}
						writes[call] = append(writes[call], ws...)
					}
				}
			}
		case *syntax.CallExpr:
			if len(x.Args) == 0 {
				return true
			}
			ws, lit := words(x.Args)
			if len(ws) == 0 {
				return true
			}
			fd, hasFeed := feeds[x]
			p.command(Form{Words: ws, Lit: lit}, writes[x], fd, hasFeed, depth)
		}
		return true
	})
}

// command records one simple command and what it runs.
func (p *parser) command(form Form, writes []string, fd feed, hasFeed bool, depth int) {
	ws, lit := form.Words, form.Lit
	c := Command{Form: form, Writes: writes}
	c.Inner = unwrap(c.Form)
	p.out = append(p.out, c)
	idx := len(p.out) - 1
	if depth >= maxDepth {
		p.out[idx].Inner = append(p.out[idx].Inner, Unknown)
		return
	}
	unknown := false
	if !c.Dynamic() {
		switch v, ok := p.aliases[ws[0]]; {
		case ws[0] == "alias":
			for i, a := range ws[1:] {
				name, val, ok := strings.Cut(a, "=")
				if !ok {
					continue
				}
				if !lit[i+1] {
					unknown = true
					continue
				}
				if p.aliases == nil {
					p.aliases = map[string]string{}
				}
				p.aliases[name] = val
			}
		case ok:
			if p.script(v+" "+strings.Join(ws[1:], " "), depth+1) != nil {
				unknown = true
			}
		}
	}
	for _, f := range append([]Form{c.Form}, c.Inner...) {
		if !p.nested(f, fd, hasFeed, depth) {
			unknown = true
		}
	}
	if unknown {
		p.out[idx].Inner = append(p.out[idx].Inner, Unknown)
	}
}

// nested parses the script a form hands to a shell (sh -c, eval, a shell
// reading its input, find -exec, watch, su -c, flock -c, git aliases
// starting with !). It returns false when the form runs a script that
// cannot be known statically.
func (p *parser) nested(f Form, fd feed, hasFeed bool, depth int) bool {
	if f.Dynamic() {
		return len(f.Words) > 0 // a run-time name is caught by matching; no words is Unknown already
	}
	ws, lit := f.Words, f.Lit
	sub := func(src string, ok bool) bool {
		if !ok {
			return false
		}
		return p.script(src, depth+1) == nil
	}
	switch base(ws[0]) {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "busybox":
		if base(ws[0]) == "busybox" {
			if len(ws) < 2 || !isShell(ws[1]) {
				return true
			}
			ws, lit = ws[1:], lit[1:]
		}
		switch mode, i := shellMode(ws, lit); mode {
		case shellString:
			return sub(ws[i], lit[i])
		case shellStdin:
			if !hasFeed {
				// Interactive input or a pipe we could not see: with no
				// feed recorded the input is the tool's (empty) stdin.
				return true
			}
			return sub(fd.text, fd.known)
		case shellUnknown:
			return false
		}
	case "eval":
		if !allLit(lit[1:]) {
			return false
		}
		return sub(strings.Join(ws[1:], " "), true)
	case "source", ".":
		// The file's content is not known before it runs.
		return len(ws) < 2
	case "find":
		for _, cmd := range findExecs(Form{Words: ws, Lit: lit}) {
			p.command(cmd, nil, feed{}, false, depth+1)
		}
		return true
	case "watch":
		i := skipOptions(ws, "dnpgxtbechwqs", "nd", []string{"--interval", "--differences"}, []string{"--interval"})
		if i < len(ws) {
			return sub(strings.Join(ws[i:], " "), allLit(lit[i:]))
		}
	case "su", "flock", "runuser":
		for i := 1; i+1 < len(ws); i++ {
			if ws[i] == "-c" || ws[i] == "--command" {
				return sub(ws[i+1], lit[i+1])
			}
		}
		if base(ws[0]) == "su" || base(ws[0]) == "runuser" {
			// su without -c starts a shell reading its input.
			if hasFeed {
				return sub(fd.text, fd.known)
			}
		}
	case "git":
		if s, ok := gitShellAlias(f); ok {
			return sub(s, true)
		}
	}
	return true
}

func isShell(name string) bool {
	switch base(name) {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash":
		return true
	}
	return false
}

type shellRun int

const (
	shellFile    shellRun = iota // runs a script file (a program like any other)
	shellString                  // -c: runs the string at the returned index
	shellStdin                   // reads its script from standard input
	shellUnknown                 // a script given but not known statically
)

// shellMode reads a shell's options: -c (with the script as the first
// argument after the options), -s or no script file (standard input), or a
// script file. -o and -O take a value; +o too.
func shellMode(ws []string, lit []bool) (shellRun, int) {
	c, s := false, false
	i := 1
	for i < len(ws) {
		w := ws[i]
		if !lit[i] {
			return shellUnknown, i
		}
		if w == "--" || w == "-" {
			i++
			break
		}
		if strings.HasPrefix(w, "--") {
			i++
			if w == "--rcfile" || w == "--init-file" {
				i++
			}
			continue
		}
		if len(w) > 1 && (w[0] == '-' || w[0] == '+') {
			i++
			for _, ch := range w[1:] {
				switch ch {
				case 'c':
					c = true
				case 's':
					s = true
				case 'o', 'O':
					i++
				}
			}
			continue
		}
		break
	}
	switch {
	case c && i < len(ws):
		return shellString, i
	case c:
		return shellFile, i // bash -c with no string: an error, runs nothing
	case s || i >= len(ws):
		return shellStdin, i
	}
	return shellFile, i
}

// pipeFeed is what the left side of a pipe writes, when it is echo,
// printf or cat of a here-document with literal text.
func pipeFeed(st *syntax.Stmt) feed {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return feed{}
	}
	ws, lit := words(call.Args)
	if len(ws) == 0 || !allLit(lit) {
		return feed{}
	}
	if base(ws[0]) == "cat" && len(ws) == 1 {
		for _, r := range st.Redirs {
			if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil {
				s, ok := hdocText(r.Hdoc)
				return feed{s, ok}
			}
			if r.Op == syntax.WordHdoc {
				ws, lit := words([]*syntax.Word{r.Word})
				return feed{strings.Join(ws, " "), allLit(lit)}
			}
		}
	}
	return feedFromWords(ws)
}

// feedFromWords is what echo or printf with these literal words writes.
func feedFromWords(ws []string) feed {
	if len(ws) == 0 {
		return feed{}
	}
	switch base(ws[0]) {
	case "echo":
		i := 1
		for i < len(ws) && (ws[i] == "-n" || ws[i] == "-e" || ws[i] == "-E" || ws[i] == "-ne" || ws[i] == "-en") {
			i++
		}
		return feed{strings.Join(ws[i:], " "), true}
	case "printf":
		if len(ws) < 2 {
			return feed{"", true}
		}
		// The format and its arguments, with \n and friends decoded: close
		// enough to see the commands in it.
		return feed{ansiC(strings.Join(ws[1:], " ")), true}
	}
	return feed{}
}

// hdocText is a here-document's text when it has no expansions.
func hdocText(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		l, ok := part.(*syntax.Lit)
		if !ok {
			return "", false
		}
		b.WriteString(l.Value)
	}
	return b.String(), true
}

// findExecs returns the commands of find's -exec, -execdir, -ok and
// -okdir actions.
func findExecs(f Form) []Form {
	var out []Form
	for i := 1; i < len(f.Words); i++ {
		switch f.Words[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(f.Words) && f.Words[j] != ";" && f.Words[j] != "+" {
				j++
			}
			if j > i+1 {
				// {} is a path find finds: not known statically.
				ws := f.Words[i+1 : j]
				lit := append([]bool(nil), f.Lit[i+1:j]...)
				for k, w := range ws {
					if strings.Contains(w, "{}") {
						lit[k] = false
					}
				}
				out = append(out, Form{Words: ws, Lit: lit, Open: j < len(f.Words) && f.Words[j] == "+"})
			}
			i = j
		}
	}
	return out
}

// words turns parsed words into their values: quote removal, $'…'
// decoding and brace expansion for literal words, the text as written
// for the others.
func words(args []*syntax.Word) ([]string, []bool) {
	ws := make([]string, 0, len(args))
	lit := make([]bool, 0, len(args))
	for _, w := range args {
		expanded := []*syntax.Word{w}
		if hasBrace(w) {
			c := &syntax.Word{Parts: append([]syntax.WordPart(nil), w.Parts...)}
			if syntax.SplitBraces(c) {
				expanded = braces(c)
			}
		}
		for _, x := range expanded {
			s, ok := literal(x)
			ws = append(ws, s)
			lit = append(lit, ok)
		}
	}
	return ws, lit
}

// maxBraceWords bounds brace expansion; a word that expands to more is
// kept as written, not literal.
const maxBraceWords = 64

func braces(w *syntax.Word) []*syntax.Word {
	var out []*syntax.Word
	for x, err := range expand.BracesSeq(nil, w) {
		if err != nil || len(out) == maxBraceWords {
			return []*syntax.Word{w} // its BraceExp parts make it non-literal
		}
		out = append(out, x)
	}
	return out
}

func hasBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

// literal returns the word's value after quote removal when it has no
// expansions, else the word as written and false.
func literal(w *syntax.Word) (string, bool) {
	if len(w.Parts) == 1 {
		// The common case, a plain word: no copy.
		if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.Contains(l.Value, `\`) {
			return l.Value, true
		}
	}
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
				b.WriteString(ansiC(x.Value))
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			if x.Dollar || !litParts(b, x.Parts, true) {
				return false
			}
		case *syntax.BraceExp:
			// An expansion SplitBraces found but Braces left alone (a
			// sequence such as {a..z}): kept as written, not literal.
			return false
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

// ansiC decodes the backslash escapes of bash's $'…' quoting.
func ansiC(s string) string {
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
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			v, n := 0, 0
			for n < max && i+1 < len(s) && isHex(s[i+1]) {
				i++
				v = v*16 + hexVal(s[i])
				n++
			}
			switch {
			case n == 0:
				b.WriteByte('\\')
				b.WriteByte(e)
			case e == 'x':
				b.WriteByte(byte(v))
			default:
				b.WriteRune(rune(v))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, n := int(e-'0'), 1
			for n < 3 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7' {
				i++
				v = v*8 + int(s[i]-'0')
				n++
			}
			b.WriteByte(byte(v))
		default:
			// \\ \' \" \? and unknown escapes: the character itself
			// (bash keeps the backslash for unknown ones).
			if strings.IndexByte(`\'"?`, e) < 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

func allLit(lit []bool) bool {
	for _, l := range lit {
		if !l {
			return false
		}
	}
	return true
}

func base(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}
