package ui

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// The /resume picker's search, as the established harness matches: the
// query is words (each must match somewhere), "quoted phrases" (matched
// exactly, whitespace folded), or re:PATTERN (a case-insensitive regular
// expression). A word found in the session's name ranks first, then one
// found in its id, message text or directory, then one whose letters
// appear in order, scattered, in the name or directory.

const (
	tierName  = 0
	tierText  = 1
	tierFuzzy = 2
	tierSpan  = 1_000_000.0
)

type searchToken struct {
	phrase bool
	value  string
}

type searchQuery struct {
	regex  *regexp.Regexp
	isRe   bool
	tokens []searchToken
	bad    bool // an empty or invalid re: pattern matches nothing
}

func parseSessionQuery(q string) searchQuery {
	q = strings.TrimSpace(q)
	if rest, ok := strings.CutPrefix(q, "re:"); ok {
		rest = strings.TrimSpace(rest)
		re, err := regexp.Compile("(?i)" + rest)
		if rest == "" || err != nil {
			return searchQuery{isRe: true, bad: true}
		}
		return searchQuery{isRe: true, regex: re}
	}
	var out searchQuery
	var buf strings.Builder
	inQuote := false
	flush := func(phrase bool) {
		if v := strings.TrimSpace(buf.String()); v != "" {
			out.tokens = append(out.tokens, searchToken{phrase: phrase, value: v})
		}
		buf.Reset()
	}
	for _, r := range q {
		switch {
		case r == '"':
			flush(inQuote)
			inQuote = !inQuote
		case !inQuote && unicode.IsSpace(r):
			flush(false)
		default:
			buf.WriteRune(r)
		}
	}
	if inQuote {
		// An unclosed quote: plain words after all.
		out.tokens = nil
		for _, w := range strings.Fields(q) {
			out.tokens = append(out.tokens, searchToken{value: w})
		}
		return out
	}
	flush(false)
	return out
}

// searchable is a session with its lowercased search text.
type searchable struct {
	s    SessionInfo
	text string // every message's text, lowercased ("" until loaded)
}

func foldSpace(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

func (x searchable) literal(v string) (float64, bool) {
	name := strings.ToLower(x.s.Name)
	if strings.Contains(name, v) {
		sc, _ := fuzzyScore(v, name)
		return tierName*tierSpan + sc, true
	}
	if strings.Contains(strings.ToLower(x.s.ID), v) || strings.Contains(x.text, v) || strings.Contains(strings.ToLower(x.s.Cwd), v) {
		return tierText * tierSpan, true
	}
	return 0, false
}

func (x searchable) phrase(v string) (float64, bool) {
	name := foldSpace(x.s.Name)
	if strings.Contains(name, v) {
		sc, _ := fuzzyScore(v, name)
		return tierName*tierSpan + sc, true
	}
	if strings.Contains(strings.ToLower(x.s.ID), v) || strings.Contains(foldSpace(x.text), v) || strings.Contains(foldSpace(x.s.Cwd), v) {
		return tierText * tierSpan, true
	}
	return 0, false
}

func (x searchable) word(v string) (float64, bool) {
	if sc, ok := x.literal(strings.ToLower(v)); ok {
		return sc, true
	}
	best, found := 0.0, false
	for _, field := range []string{x.s.Name, x.s.Cwd} {
		if sc, ok := fuzzyScore(v, field); ok && (!found || sc < best) {
			best, found = sc, true
		}
	}
	return tierFuzzy*tierSpan + best, found
}

func (x searchable) match(q searchQuery) (float64, bool) {
	if q.isRe {
		if q.bad {
			return 0, false
		}
		if x.s.Name != "" && q.regex.MatchString(x.s.Name) {
			return tierName * tierSpan, true
		}
		if q.regex.MatchString(x.s.ID) || q.regex.MatchString(x.text) || q.regex.MatchString(x.s.Cwd) {
			return tierText * tierSpan, true
		}
		return 0, false
	}
	total := 0.0
	for _, t := range q.tokens {
		var sc float64
		var ok bool
		if t.phrase {
			p := foldSpace(t.value)
			if p == "" {
				continue
			}
			sc, ok = x.phrase(p)
		} else {
			sc, ok = x.word(t.value)
		}
		if !ok {
			return 0, false
		}
		total += sc
	}
	return total, true
}

// filterSessions keeps the sessions the query matches: in the given order
// for "recent", best match first (newest first among equals) otherwise.
func filterSessions(list []searchable, query string, recent bool) []SessionInfo {
	q := parseSessionQuery(query)
	type scored struct {
		s     SessionInfo
		score float64
	}
	var hits []scored
	for _, x := range list {
		if sc, ok := x.match(q); ok {
			hits = append(hits, scored{x.s, sc})
		}
	}
	if !recent {
		sort.SliceStable(hits, func(i, j int) bool {
			if hits[i].score != hits[j].score {
				return hits[i].score < hits[j].score
			}
			return hits[i].s.Modified.After(hits[j].s.Modified)
		})
	}
	out := make([]SessionInfo, len(hits))
	for i, h := range hits {
		out[i] = h.s
	}
	return out
}

// fuzzyScore reports whether query's characters appear in text in order,
// and how well (lower is better): runs of adjacent characters and starts
// of words score better, gaps and late positions worse. A word of letters
// then digits also matches digits then letters ("v2" finds "2v").
func fuzzyScore(query, text string) (float64, bool) {
	q, t := []rune(strings.ToLower(query)), []rune(strings.ToLower(text))
	if sc, ok := alignScore(q, t); ok {
		return sc, true
	}
	split := 0
	for split < len(q) && unicode.IsLetter(q[split]) {
		split++
	}
	swapped := []rune(nil)
	if split > 0 && split < len(q) && allDigits(q[split:]) {
		swapped = append(append(swapped, q[split:]...), q[:split]...)
	} else if split == 0 {
		d := 0
		for d < len(q) && unicode.IsDigit(q[d]) {
			d++
		}
		if d > 0 && d < len(q) && allLetters(q[d:]) {
			swapped = append(append(swapped, q[d:]...), q[:d]...)
		}
	}
	if swapped == nil {
		return 0, false
	}
	sc, ok := alignScore(swapped, t)
	return sc + 5, ok
}

func allDigits(r []rune) bool {
	for _, c := range r {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func allLetters(r []rune) bool {
	for _, c := range r {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func alignScore(q, t []rune) (float64, bool) {
	if len(q) == 0 {
		return 0, true
	}
	if len(q) > len(t) {
		return 0, false
	}
	pos := make([]int, len(q))
	at := -1
	for i, c := range q {
		j := indexRune(t, c, at+1)
		if j < 0 {
			return 0, false
		}
		pos[i], at = j, j
	}
	best := positionScore(t, pos)
	// The first-found alignment may scatter the query over an unrelated
	// part of the text: every unbroken occurrence is scored too.
	for start := indexRunes(t, q, 0); start >= 0; start = indexRunes(t, q, start+1) {
		for k := range pos {
			pos[k] = start + k
		}
		best = min(best, positionScore(t, pos))
	}
	if string(q) == string(t) {
		best -= 100
	}
	return best, true
}

func positionScore(t []rune, pos []int) float64 {
	score, last, run := 0.0, -1, 0
	for _, i := range pos {
		if last == i-1 {
			run++
			score -= float64(run * 5)
		} else {
			run = 0
			if last >= 0 {
				score += float64((i - last - 1) * 2)
			}
		}
		if i == 0 || strings.ContainsRune(" \t\n\r\f\v-_./:", t[i-1]) {
			score -= 10
		}
		score += float64(i) * 0.1
		last = i
	}
	return score
}

func indexRune(t []rune, c rune, from int) int {
	for i := from; i < len(t); i++ {
		if t[i] == c {
			return i
		}
	}
	return -1
}

func indexRunes(t, q []rune, from int) int {
	for i := from; i+len(q) <= len(t); i++ {
		if string(t[i:i+len(q)]) == string(q) {
			return i
		}
	}
	return -1
}
