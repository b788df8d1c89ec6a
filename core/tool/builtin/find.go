package builtin

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/piwasm/pi/core/tool"
)

const findDefaultLimit = 1000

// globMatcher applies a find or grep glob the way fd and rg do: a pattern
// without '/' matches names at any depth; one with '/' is anchored at the
// search directory. A leading "./" is dropped.
type globMatcher struct {
	pattern  string
	anchored bool
	fold     bool // match regardless of case
}

func newGlobMatcher(pattern string, smartCase bool) (*globMatcher, error) {
	p := pattern
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	// 'dir/**' lists what is below dir, not dir itself.
	if strings.HasSuffix(p, "/**") {
		p += "/*"
	}
	m := &globMatcher{pattern: p, anchored: strings.Contains(p, "/")}
	if smartCase && p == strings.ToLower(p) {
		m.fold = true
	}
	if !doublestar.ValidatePattern(p) {
		return nil, fmt.Errorf("the glob %q is not valid", pattern)
	}
	return m, nil
}

func (m *globMatcher) match(rel string) bool {
	subject := rel
	if !m.anchored {
		subject = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	if m.fold {
		subject = strings.ToLower(subject)
	}
	ok, _ := doublestar.Match(m.pattern, subject)
	return ok
}

func (e Env) runFind(ctx context.Context, call tool.Call, _ tool.Update) (tool.Result, error) {
	pattern := strArg(call.Args, "pattern")
	dir := strArg(call.Args, "path")
	if dir == "" {
		dir = "."
	}
	limit := limitArg(call.Args, "limit", findDefaultLimit)
	_, real, err := e.open("find", Read, dir)
	if err != nil {
		return tool.ErrorResult("%v", err), nil
	}
	info, err := e.FS.Stat(real)
	if err != nil {
		return tool.ErrorResult("%s", describeFSError("search", dir, err)), nil
	}
	if !info.IsDir() {
		return tool.ErrorResult("%s is not a directory; find searches directories.", dir), nil
	}
	absPattern := filepath.IsAbs(pattern)
	if absPattern {
		// An absolute glob is matched against absolute paths.
		pattern = filepath.ToSlash(pattern)
	}
	m, err := newGlobMatcher(pattern, true)
	if err != nil {
		return tool.ErrorResult("%v", err), nil
	}
	var found []string
	more := false
	skipped, werr := e.walk(ctx, "find", real, func(rel, abs string, d fs.DirEntry) error {
		subject := rel
		if absPattern {
			subject = filepath.ToSlash(abs)
		}
		if !m.match(subject) {
			return nil
		}
		if len(found) == limit {
			more = true
			return errStop
		}
		if d.IsDir() {
			rel += "/"
		}
		found = append(found, rel)
		return nil
	})
	if werr != nil {
		return tool.Result{}, werr
	}
	note := skippedNote(skipped)
	if len(found) == 0 {
		if note != "" {
			return tool.TextResult("No files match the pattern.\n\n[" + note + ".]"), nil
		}
		return tool.TextResult("No files match the pattern."), nil
	}
	return withNote(listResult(found, more, limit, "result", "results", "resultLimitReached", ", or narrow the pattern"), note), nil
}
