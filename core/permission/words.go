package permission

import (
	"strings"

	"github.com/piwasm/pi/core/shellcmd"
)

// Command is one simple command found in a script, with the forms it runs
// (see package shellcmd).
type Command = shellcmd.Command

// Commands parses script as bash and returns every simple command in it
// (see [shellcmd.Parse]). A script that does not parse yields the error
// and one command that could be anything, which every deny and ask rule
// for bash matches.
func Commands(script string) ([]Command, error) {
	return shellcmd.Parse(script)
}

// couldMatch reports whether the rule's bash pattern could match what the
// form runs: exactly when every word is known, and, when a word is only
// known at run time or more may follow, whenever the known leading words
// do not rule it out. Deny and ask rules use it, so what cannot be known
// statically is refused or asked about rather than let through.
func (r *Rule) couldMatch(f shellcmd.Form) bool {
	known := 0
	for known < len(f.Words) && f.Lit[known] {
		known++
	}
	if known == len(f.Words) && !f.Open {
		return r.matchWords(f.Words)
	}
	if r.prefix != nil {
		for i, w := range r.prefix {
			if i >= known {
				return true
			}
			if f.Words[i] != w {
				return false
			}
		}
		return true
	}
	return globPrefixMatch(r.glob, strings.Join(f.Words[:known], " "))
}

// globPrefixMatch reports whether some string starting with s matches the
// pattern (globMatch's syntax). It tracks the set of pattern positions
// reachable after each byte of s, so it runs in O(len(pattern)·len(s)).
func globPrefixMatch(pattern, s string) bool {
	n := len(pattern)
	cur := make([]bool, n+1)
	next := make([]bool, n+1)
	closeStars := func(set []bool) {
		for p := 0; p < n; p++ {
			if set[p] && pattern[p] == '*' {
				set[p+1] = true
			}
		}
	}
	cur[0] = true
	closeStars(cur)
	for i := 0; i < len(s); i++ {
		c := s[i]
		any := false
		for p := range next {
			next[p] = false
		}
		for p := 0; p < n; p++ {
			if !cur[p] {
				continue
			}
			switch pc := pattern[p]; {
			case pc == '*':
				next[p] = true
			case pc == '?':
				next[p+1] = true
			case pc == '\\' && p+1 < n:
				if pattern[p+1] == c {
					next[p+2] = true
				}
			case pc == c:
				next[p+1] = true
			}
		}
		closeStars(next)
		for _, v := range next {
			any = any || v
		}
		if !any {
			return false
		}
		cur, next = next, cur
	}
	return true
}
