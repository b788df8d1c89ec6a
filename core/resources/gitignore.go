package resources

import (
	"strings"
)

// Gitignore is an ordered set of ignore rules in the syntax of .gitignore
// files. Rules come from one or more files, each scoped to the directory that
// holds it. The zero value ignores nothing.
//
// Supported: comments (`#`), blank lines, negation (`!`), directory-only
// patterns (trailing `/`), anchored patterns (a `/` anywhere but at the end),
// `*`, `?`, `[...]` classes (with `!` or `^` negation and ranges), `**` as a
// whole path segment (leading, inner or trailing) and backslash escapes.
// The last matching rule decides, as in git.
type Gitignore struct {
	rules []ignoreRule
}

type ignoreRule struct {
	base    string   // slash-separated directory of the ignore file, "" for the root
	segs    []string // pattern split on "/"
	negate  bool
	dirOnly bool
}

// Add appends the rules of one ignore file whose directory is base, a
// slash-separated path relative to the root the matcher is used from ("" for
// the root itself).
func (g *Gitignore) Add(base, text string) {
	base = strings.Trim(base, "/")
	for _, line := range strings.Split(text, "\n") {
		if r, ok := parseIgnoreLine(line); ok {
			r.base = base
			g.rules = append(g.rules, r)
		}
	}
}

// Len reports the number of rules.
func (g *Gitignore) Len() int { return len(g.rules) }

func parseIgnoreLine(line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	// Trailing spaces are dropped unless escaped with a backslash. Git
	// keeps trailing tabs (checked with git check-ignore), so do we.
	for strings.HasSuffix(line, " ") {
		if strings.HasSuffix(line[:len(line)-1], "\\") {
			break
		}
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	var r ignoreRule
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimLeft(line, "/")
	for _, s := range strings.Split(line, "/") {
		if s != "" {
			r.segs = append(r.segs, s)
		}
	}
	if len(r.segs) == 0 {
		return ignoreRule{}, false
	}
	if !anchored {
		r.segs = append([]string{"**"}, r.segs...)
	}
	return r, true
}

// Match reports whether the slash-separated path rel (relative to the root)
// is ignored. isDir tells whether it names a directory, for patterns that end
// in `/`. A path below an ignored directory is not reported by itself: walkers
// do not descend into ignored directories.
func (g *Gitignore) Match(rel string, isDir bool) bool {
	if g == nil || len(g.rules) == 0 {
		return false
	}
	rel = strings.Trim(rel, "/")
	if rel == "" {
		return false
	}
	var parts []string
	ignored := false
	for i := range g.rules {
		r := &g.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if ignored != r.negate {
			continue // this rule cannot change the outcome
		}
		sub := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			sub = rel[len(r.base)+1:]
			if matchSegments(r.segs, strings.Split(sub, "/")) {
				ignored = !r.negate
			}
			continue
		}
		if parts == nil {
			parts = strings.Split(rel, "/")
		}
		if matchSegments(r.segs, parts) {
			ignored = !r.negate
		}
	}
	return ignored
}

// matchSegments matches pattern segments against path segments. A "**"
// segment matches any number of path segments; at the end of the pattern it
// needs at least one.
func matchSegments(p, s []string) bool {
	// memo[i*(len(s)+1)+j]: 0 unknown, 1 false, 2 true.
	memo := make([]uint8, (len(p)+1)*(len(s)+1))
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		key := i*(len(s)+1) + j
		if m := memo[key]; m != 0 {
			return m == 2
		}
		var ok bool
		switch {
		case i == len(p):
			ok = j == len(s)
		case p[i] == "**" && i == len(p)-1:
			ok = j < len(s)
		case p[i] == "**":
			for k := j; k <= len(s) && !ok; k++ {
				ok = rec(i+1, k)
			}
		case j == len(s):
			ok = false
		default:
			ok = matchGlob(p[i], s[j]) && rec(i+1, j+1)
		}
		memo[key] = 1
		if ok {
			memo[key] = 2
		}
		return ok
	}
	return rec(0, 0)
}

// matchGlob matches one path segment against a glob without slashes: `*`
// (any run, "**" inside a segment counts as `*`), `?` (one character),
// `[...]` and `\x`.
func matchGlob(pattern, name string) bool {
	p := []rune(pattern)
	s := []rune(name)
	px, sx := 0, 0
	starPx, starSx := -1, -1
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			switch c := p[px]; c {
			case '*':
				starPx, starSx = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			case '[':
				if sx < len(s) {
					matched, width, valid := matchClass(p[px:], s[sx])
					if !valid {
						if s[sx] == '[' {
							px++
							sx++
							continue
						}
					} else if matched {
						px += width
						sx++
						continue
					}
				}
			case '\\':
				lit := c
				w := 1
				if px+1 < len(p) {
					lit, w = p[px+1], 2
				}
				if sx < len(s) && s[sx] == lit {
					px += w
					sx++
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if starSx > 0 && starSx <= len(s) {
			px, sx = starPx+1, starSx
			starSx++
			continue
		}
		return false
	}
	return true
}

// matchClass matches r against the bracket expression at the start of p.
// width is the length of the expression; valid is false when there is no
// closing bracket (the `[` is then literal).
func matchClass(p []rune, r rune) (matched bool, width int, valid bool) {
	i := 1
	negate := false
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		negate = true
		i++
	}
	first := true
	for i < len(p) {
		c := p[i]
		if c == ']' && !first {
			return matched != negate, i + 1, true
		}
		first = false
		if c == '\\' && i+1 < len(p) {
			i++
			c = p[i]
		}
		lo, hi := c, c
		if i+2 < len(p) && p[i+1] == '-' && p[i+2] != ']' {
			hi = p[i+2]
			if hi == '\\' && i+3 < len(p) {
				hi = p[i+3]
				i++
			}
			i += 2
		}
		if lo <= r && r <= hi {
			matched = true
		}
		i++
	}
	return false, 0, false
}
