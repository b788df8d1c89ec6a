package builtin

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Edit is one replacement of the edit tool.
type Edit struct{ OldText, NewText string }

// replacement is a matched edit: a byte range of the text it was matched in
// and what goes there.
type replacement struct {
	index, length int
	newText       string
	edit          int // position in the call's edits, for messages
}

// editError is an edit the model must fix; its text is the tool's error.
type editError struct{ msg string }

func (e *editError) Error() string { return e.msg }

func editErrorf(format string, a ...any) error { return &editError{fmt.Sprintf(format, a...)} }

// toLF turns CRLF and lone CR line ends into LF.
func toLF(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// tolerant is the normalised form the second matching pass compares:
// Unicode NFKC, trailing whitespace dropped from every line, and typographic
// quotes, dashes and spaces replaced by their ASCII forms.
func tolerant(s string) string {
	if alreadyTolerant(s) {
		return s
	}
	s = norm.NFKC.String(s)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, isTrailingSpace)
	}
	return tolerantReplacer.Replace(strings.Join(lines, "\n"))
}

// alreadyTolerant reports, in one pass, that s is ASCII with no blank at a
// line's end: such text is its own tolerant form (ASCII is NFKC-stable and
// the replacements only touch other characters), so large ordinary files
// skip the normalisation.
func alreadyTolerant(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return false
		}
		if (c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r') && (i+1 == len(s) || s[i+1] == '\n') {
			return false
		}
	}
	return true
}

func isTrailingSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\v', '\f', '\r', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

var tolerantReplacer = strings.NewReplacer(
	"\u2018", "'", "\u2019", "'", "\u201a", "'", "\u201b", "'",
	"\u201c", `"`, "\u201d", `"`, "\u201e", `"`, "\u201f", `"`,
	"\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2013", "-", "\u2014", "-", "\u2015", "-", "\u2212", "-",
	"\u00a0", " ", "\u2002", " ", "\u2003", " ", "\u2004", " ", "\u2005", " ", "\u2006", " ",
	"\u2007", " ", "\u2008", " ", "\u2009", " ", "\u200a", " ", "\u202f", " ", "\u205f", " ", "\u3000", " ",
)

// applyEdits applies edits to content, which has LF line ends and no BOM.
// Every oldText is matched against content itself, never against the result
// of another edit. It returns the new content and the replacements in
// content's offsets (sorted, disjoint), or an *editError.
//
// Matching is exact first. When some edit only matches tolerantly, all edits
// are matched in the tolerant form of the file, and each replacement is then
// widened to the whole lines it touches, so lines no edit touches keep their
// original bytes.
func applyEdits(content string, edits []Edit, path string) (string, []replacement, error) {
	n := len(edits)
	norm := make([]Edit, n)
	for i, e := range edits {
		norm[i] = Edit{toLF(e.OldText), toLF(e.NewText)}
		if norm[i].OldText == "" {
			if n == 1 {
				return "", nil, editErrorf("oldText is empty; give the exact text to replace in %s.", path)
			}
			return "", nil, editErrorf("edits[%d].oldText is empty; give the exact text to replace in %s.", i, path)
		}
	}
	fuzzy := false
	for _, e := range norm {
		if !strings.Contains(content, e.OldText) {
			fuzzy = true
			break
		}
	}
	base := content
	var tolContent string
	tol := func() string {
		if tolContent == "" {
			tolContent = tolerant(content)
		}
		return tolContent
	}
	if fuzzy {
		base = tol()
	}
	reps := make([]replacement, 0, n)
	for i, e := range norm {
		old := e.OldText
		idx := strings.Index(base, old)
		if idx < 0 {
			old = tolerant(e.OldText)
			if old != "" {
				idx = strings.Index(base, old)
			}
		}
		if idx < 0 {
			if n == 1 {
				return "", nil, editErrorf("The text to replace was not found in %s. oldText must match the file exactly, spaces, tabs and line breaks included; read the file again and copy it.", path)
			}
			return "", nil, editErrorf("edits[%d].oldText was not found in %s. It must match the file exactly, spaces, tabs and line breaks included; read the file again and copy it.", i, path)
		}
		// Uniqueness is judged in the tolerant form, so two places that only
		// differ in quotes or trailing blanks count as two.
		count := 0
		if t := tolerant(e.OldText); t != "" {
			count = strings.Count(tol(), t)
		}
		if exact := strings.Count(base, old); exact > count {
			count = exact
		}
		if count > 1 {
			if n == 1 {
				return "", nil, editErrorf("The text to replace occurs %d times in %s; it must occur once. Add surrounding lines to oldText so it is unique.", count, path)
			}
			return "", nil, editErrorf("edits[%d].oldText occurs %d times in %s; each must occur once. Add surrounding lines so it is unique.", i, count, path)
		}
		reps = append(reps, replacement{index: idx, length: len(old), newText: e.NewText, edit: i})
	}
	sort.Slice(reps, func(a, b int) bool { return reps[a].index < reps[b].index })
	for i := 1; i < len(reps); i++ {
		p, c := reps[i-1], reps[i]
		if p.index+p.length > c.index {
			return "", nil, editErrorf("edits[%d] and edits[%d] overlap in %s. Merge them into one edit, or make them target separate text.", p.edit, c.edit, path)
		}
	}
	if fuzzy {
		var err error
		if reps, err = widenToLines(content, base, reps); err != nil {
			return "", nil, err
		}
	}
	out := splice(content, reps)
	if out == content {
		if n == 1 {
			return "", nil, editErrorf("Nothing changed in %s: newText produces the same content as before.", path)
		}
		return "", nil, editErrorf("Nothing changed in %s: the replacements produce the same content as before.", path)
	}
	return out, reps, nil
}

// splice applies sorted, disjoint replacements to s.
func splice(s string, reps []replacement) string {
	var b strings.Builder
	b.Grow(len(s))
	pos := 0
	for _, r := range reps {
		b.WriteString(s[pos:r.index])
		b.WriteString(r.newText)
		pos = r.index + r.length
	}
	b.WriteString(s[pos:])
	return b.String()
}

// lineSpans returns the [start,end) byte range of every line of s, each end
// including its newline.
func lineSpans(s string) [][2]int {
	var spans [][2]int
	start := 0
	for start < len(s) {
		i := strings.IndexByte(s[start:], '\n')
		end := len(s)
		if i >= 0 {
			end = start + i + 1
		}
		spans = append(spans, [2]int{start, end})
		start = end
	}
	return spans
}

// widenToLines turns replacements matched in base (the tolerant form of
// orig, with the same lines) into replacements of orig covering whole lines:
// the touched lines are rewritten from base with the replacements applied;
// every other line stays as it is in orig.
func widenToLines(orig, base string, reps []replacement) ([]replacement, error) {
	ol, bl := lineSpans(orig), lineSpans(base)
	if len(ol) != len(bl) {
		return nil, editErrorf("The file's lines could not be lined up with their normalised form; use an oldText that matches the file exactly.")
	}
	lineOf := func(off int) int {
		return sort.Search(len(bl), func(i int) bool { return bl[i][1] > off })
	}
	type group struct {
		first, last int // line range, inclusive
		reps        []replacement
	}
	var groups []group
	for _, r := range reps {
		first := lineOf(r.index)
		last := lineOf(max(r.index+r.length-1, r.index))
		if first >= len(bl) {
			first = len(bl) - 1
		}
		if last >= len(bl) {
			last = len(bl) - 1
		}
		if k := len(groups) - 1; k >= 0 && first <= groups[k].last {
			groups[k].last = max(groups[k].last, last)
			groups[k].reps = append(groups[k].reps, r)
			continue
		}
		groups = append(groups, group{first, last, []replacement{r}})
	}
	out := make([]replacement, 0, len(groups))
	for _, g := range groups {
		bs, be := bl[g.first][0], bl[g.last][1]
		local := make([]replacement, len(g.reps))
		for i, r := range g.reps {
			r.index -= bs
			local[i] = r
		}
		text := splice(base[bs:be], local)
		os, oe := ol[g.first][0], ol[g.last][1]
		out = append(out, replacement{index: os, length: oe - os, newText: text, edit: g.reps[0].edit})
	}
	return out, nil
}

// toOriginal maps replacements of the LF form of orig back onto orig,
// whose lines may end in CRLF. Text outside the replaced ranges keeps its
// bytes; line breaks inside new text take the ending of the line where the
// replacement starts.
func toOriginal(orig string, reps []replacement) string {
	if !strings.Contains(orig, "\r") {
		return splice(orig, reps)
	}
	// The n-th CRLF of orig sits n bytes later than its LF in the LF form.
	var crlf []int // LF-form offsets of each CRLF's LF
	for i, k := 0, 0; i < len(orig); i++ {
		if orig[i] == '\r' && i+1 < len(orig) && orig[i+1] == '\n' {
			crlf = append(crlf, i-k)
			k++
			i++
		}
	}
	mapOff := func(off int) int {
		// CRLFs whose LF lies before off.
		n := sort.SearchInts(crlf, off)
		return off + n
	}
	var b strings.Builder
	pos := 0
	endsCR := false
	push := func(s string) {
		if s == "" {
			return
		}
		// A kept CR followed by an inserted LF would fuse into one CRLF.
		if endsCR && s[0] == '\n' {
			b.WriteByte('\n')
		}
		b.WriteString(s)
		endsCR = s[len(s)-1] == '\r'
	}
	for _, r := range reps {
		start := mapOff(r.index)
		push(orig[pos:start])
		text := r.newText
		if ending := lineEndingAt(orig, start); ending != "\n" {
			text = strings.ReplaceAll(text, "\n", ending)
		}
		push(text)
		pos = mapOff(r.index + r.length)
	}
	push(orig[pos:])
	return b.String()
}

// lineEndingAt is the ending of the line holding off (or of the line
// before, for an unterminated last line). A lone CR counts only in files
// with no LF at all.
func lineEndingAt(s string, off int) string {
	lf := strings.IndexByte(s[off:], '\n')
	if lf >= 0 {
		lf += off
	} else {
		lf = strings.LastIndexByte(s[:off], '\n')
	}
	if lf < 0 {
		if strings.Contains(s, "\r") {
			return "\r"
		}
		return "\n"
	}
	if lf > 0 && s[lf-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}
