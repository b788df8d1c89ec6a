package builtin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/piwasm/pi/core/tool"
)

const (
	grepDefaultLimit = 100
	// grepMaxLine is where a shown line is cut, in characters.
	grepMaxLine = 500
)

// grepSearch is one grep call's state: the output so far and where the
// match limit stands.
type grepSearch struct {
	re, whole *regexp.Regexp
	literal   []byte // set when a plain byte search finds candidate files
	context   int
	limit     int

	matches    int
	limitHit   bool // the limit-th match was shown
	trailEnd   int  // last context line (0-based) shown after that match
	moreExists bool // a match past the limit proves the cut
	done       bool

	out       []string
	outBytes  int
	cutLines  bool
	lineCount int
}

func (g *grepSearch) emit(name string, i int, line string, isMatch bool) {
	line = strings.TrimSuffix(line, "\r")
	text := toValidUTF8([]byte(line))
	if utf8.RuneCountInString(text) > grepMaxLine {
		r := []rune(text)
		text = string(r[:grepMaxLine]) + "... [cut]"
		g.cutLines = true
	}
	sep := "-"
	if isMatch {
		sep = ":"
	}
	s := name + sep + strconv.Itoa(i+1) + sep + " " + text
	// Past the byte cap lines are only counted: the cut drops them anyway.
	if g.outBytes <= tool.DefaultMaxBytes {
		g.out = append(g.out, s)
	}
	g.outBytes += len(s) + 1
	g.lineCount++
}

// file searches one file's content; name is how its lines are labelled.
func (g *grepSearch) file(name string, data []byte) {
	if g.literal != nil {
		if !bytes.Contains(data, g.literal) {
			return
		}
	} else if !g.whole.Match(data) {
		return
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	isMatch := func(i int) bool { return g.re.MatchString(strings.TrimSuffix(lines[i], "\r")) }
	if g.limitHit {
		// Only a proof that more matches exist is still wanted.
		for i := range lines {
			if isMatch(i) {
				g.moreExists, g.done = true, true
				return
			}
		}
		return
	}
	lastShown := -1
	after := -1 // context after a match runs to this line
	for i := 0; i < len(lines); i++ {
		m := isMatch(i)
		if g.limitHit {
			if i <= g.trailEnd {
				g.emit(name, i, lines[i], false)
			}
			if m {
				g.moreExists = true
			}
			if g.moreExists && i >= g.trailEnd {
				g.done = true
				return
			}
			continue
		}
		if m {
			for j := max(lastShown+1, i-g.context); j < i; j++ {
				g.emit(name, j, lines[j], false)
			}
			g.emit(name, i, lines[i], true)
			lastShown, after = i, i+g.context
			g.matches++
			if g.matches >= g.limit {
				g.limitHit, g.trailEnd = true, i+g.context
			}
			continue
		}
		if i <= after {
			g.emit(name, i, lines[i], false)
			lastShown = i
		}
	}
}

func (e Env) runGrep(ctx context.Context, call tool.Call, _ tool.Update) (tool.Result, error) {
	pattern := strArg(call.Args, "pattern")
	dir := strArg(call.Args, "path")
	if dir == "" {
		dir = "."
	}
	g := &grepSearch{limit: limitArg(call.Args, "limit", grepDefaultLimit)}
	if c, ok := numArg(call.Args, "context"); ok && c > 0 {
		g.context = int(min(c, 1e6))
	}
	src := pattern
	if boolArg(call.Args, "literal") {
		src = regexp.QuoteMeta(pattern)
		if !boolArg(call.Args, "ignoreCase") && pattern != "" {
			g.literal = []byte(pattern)
		}
	}
	if boolArg(call.Args, "ignoreCase") {
		src = "(?i)" + src
	}
	var err error
	if g.re, err = regexp.Compile(src); err != nil {
		return tool.ErrorResult("The pattern is not a valid regular expression: %v. Pass literal=true to search for it as plain text.", err), nil
	}
	// A whole-file search first skips files without any match; (?m) lets
	// ^ and $ match at line ends as they do line by line. Patterns that
	// speak of the text's very start or end are checked line by line only.
	if g.literal == nil {
		if strings.Contains(pattern, `\A`) || strings.Contains(pattern, `\z`) {
			g.whole = regexp.MustCompile(`(?:)`)
		} else if g.whole, err = regexp.Compile("(?m)" + src); err != nil {
			g.whole = regexp.MustCompile(`(?:)`)
		}
	}
	var glob *globMatcher
	negate := false
	if gp := strArg(call.Args, "glob"); gp != "" {
		if strings.HasPrefix(gp, "!") {
			negate, gp = true, gp[1:]
		}
		if glob, err = newGlobMatcher(gp, false); err != nil {
			return tool.ErrorResult("%v", err), nil
		}
	}

	_, real, err := e.open("grep", Read, dir)
	if err != nil {
		return tool.ErrorResult("%v", err), nil
	}
	info, err := e.FS.Stat(real)
	if err != nil {
		return tool.ErrorResult("%s", describeFSError("search", dir, err)), nil
	}
	skipped := 0
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return tool.ErrorResult("Cannot search %s: %v.", dir, errNotRegular), nil
		}
		if data, ok := e.candidate(real, g); ok {
			g.file(filepath.Base(real), data)
		}
	} else if skipped, err = e.grepTree(ctx, real, g, glob, negate); err != nil {
		return tool.Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return tool.Result{}, err
	}
	note := skippedNote(skipped)
	if g.matches == 0 {
		if note != "" {
			return tool.TextResult("No matches.\n\n[" + note + ".]"), nil
		}
		return tool.TextResult("No matches."), nil
	}
	tr := tool.TruncateHead(strings.Join(g.out, "\n"), int(^uint(0)>>1), tool.DefaultMaxBytes)
	tr.TotalLines, tr.TotalBytes = g.lineCount, max(g.outBytes-1, 0)
	text := tr.Text
	d := map[string]any{}
	var notes []string
	if g.moreExists {
		notes = append(notes, fmt.Sprintf("Stopped at %d match%s; there are more. Pass limit=%d to see more, or narrow the pattern", g.limit, pluralES(g.limit), 2*g.limit))
		d["matchLimitReached"] = g.limit
	}
	if tr.Truncated {
		notes = append(notes, fmt.Sprintf("Output cut at %s", formatSize(tool.DefaultMaxBytes)))
		d["truncation"] = tr
	}
	if note != "" {
		notes = append(notes, note)
	}
	if g.cutLines {
		notes = append(notes, fmt.Sprintf("Lines longer than %d characters were cut; read the file to see them whole", grepMaxLine))
		d["linesTruncated"] = true
	}
	r := tool.Result{}
	if len(notes) > 0 {
		text += "\n\n[" + strings.Join(notes, ". ") + ".]"
		r.Details = details(d)
	}
	r.Content = []tool.Part{{Type: "text", Text: text}}
	return r, nil
}

func pluralES(n int) string {
	if n == 1 {
		return ""
	}
	return "es"
}

// candidate reads a file and reports whether it may hold a match: binary
// and unreadable files are passed over, as rg does, and a whole-file search
// rules out most of the rest without splitting lines.
func (e Env) candidate(abs string, g *grepSearch) ([]byte, bool) {
	data, err := e.FS.ReadFile(abs)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return nil, false
	}
	if g.literal != nil {
		return data, bytes.Contains(data, g.literal)
	}
	return data, g.whole.Match(data)
}

// grepWorkers read and pre-screen files in parallel: a search over many
// small files spends its time in open and read system calls.
const grepWorkers = 8

// grepTree searches the files under root in walk order. Workers read and
// screen files ahead; the results are taken in order, so output and the
// match limit are the same as a sequential search.
func (e Env) grepTree(parent context.Context, root string, g *grepSearch, glob *globMatcher, negate bool) (int, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	type job struct {
		name, abs string
		data      chan []byte
	}
	jobs := make(chan *job, 4*grepWorkers)
	order := make(chan *job, 4*grepWorkers)
	var walkErr error
	var skipped int
	go func() {
		defer close(order)
		defer close(jobs)
		skipped, walkErr = e.walk(ctx, "grep", root, func(rel, abs string, d fs.DirEntry) error {
			if !d.Type().IsRegular() || (glob != nil && glob.match(rel) == negate) {
				return nil
			}
			j := &job{name: rel, abs: abs, data: make(chan []byte, 1)}
			select {
			case order <- j:
			case <-ctx.Done():
				return errStop
			}
			jobs <- j
			return nil
		})
	}()
	for w := 0; w < grepWorkers; w++ {
		go func() {
			for j := range jobs {
				if ctx.Err() != nil {
					j.data <- nil
					continue
				}
				data, ok := e.candidate(j.abs, g)
				if !ok {
					data = nil
				}
				j.data <- data
			}
		}()
	}
	for j := range order {
		data := <-j.data
		if data != nil && !g.done {
			g.file(j.name, data)
		}
		if g.done {
			cancel()
		}
	}
	if err := parent.Err(); err != nil {
		return 0, err
	}
	if walkErr != nil && !errors.Is(walkErr, context.Canceled) {
		return 0, walkErr
	}
	return skipped, nil
}
