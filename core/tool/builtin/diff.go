package builtin

import (
	"fmt"
	"strconv"
	"strings"
)

// diffContext is how many unchanged lines surround each change in a diff.
const diffContext = 4

// hunk is one changed region: old lines [oldStart, oldEnd) become new lines
// [newStart, newEnd), both 0-based, plus context around them.
type hunk struct {
	oldStart, oldEnd, newStart, newEnd int
}

// diffReplacements describes the change made by reps (sorted, disjoint, in
// old's offsets) to old, without diffing the whole file: each replacement
// already says where the change is, so only its lines are compared. That
// keeps an edit of a large file as cheap as the edit itself.
func diffReplacements(path, old string, reps []replacement) EditDetails {
	oldLines := splitKeep(old)
	newText := splice(old, reps)
	newLines := splitKeep(newText)

	// Line index of each offset in old, found by walking forward once.
	lineStarts := make([]int, 0, len(oldLines)+1)
	off := 0
	for _, l := range oldLines {
		lineStarts = append(lineStarts, off)
		off += len(l)
	}
	lineAt := func(o int) int {
		lo, hi := 0, len(lineStarts)
		for lo < hi {
			m := (lo + hi) / 2
			if lineStarts[m] <= o {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return max(lo-1, 0)
	}

	lineEnd := func(l int) int { // end offset of line l
		if l+1 < len(lineStarts) {
			return lineStarts[l+1]
		}
		return len(old)
	}
	var hunks []hunk
	delta := 0 // new line index minus old line index so far
	for k := 0; k < len(reps) && len(oldLines) > 0; {
		// Replacements that share a line are one change.
		os := lineAt(reps[k].index)
		oe := lineAt(reps[k].index+max(reps[k].length, 1)-1) + 1
		g := k + 1
		var added []string
		for {
			for g < len(reps) && lineAt(reps[g].index) < oe {
				oe = max(oe, lineAt(reps[g].index+max(reps[g].length, 1)-1)+1)
				g++
			}
			base := lineStarts[os]
			local := make([]replacement, 0, g-k)
			for _, r := range reps[k:g] {
				r.index -= base
				local = append(local, r)
			}
			chunk := splice(old[base:lineEnd(oe-1)], local)
			// A change that leaves its last line unterminated joins it
			// with the next line: that line belongs to the change too.
			if chunk != "" && !strings.HasSuffix(chunk, "\n") && oe < len(oldLines) {
				oe++
				continue
			}
			added = splitKeep(chunk)
			break
		}
		k = g
		ns := os + delta
		ne := ns + len(added)
		delta += len(added) - (oe - os)
		// Trim lines that did not really change.
		for os < oe && ns < ne && ns < len(newLines) && oldLines[os] == newLines[ns] {
			os, ns = os+1, ns+1
		}
		for oe > os && ne > ns && ne-1 < len(newLines) && oldLines[oe-1] == newLines[ne-1] {
			oe, ne = oe-1, ne-1
		}
		if os == oe && ns == ne {
			continue
		}
		hunks = append(hunks, hunk{os, oe, ns, ne})
	}
	if len(hunks) == 0 {
		return EditDetails{}
	}

	width := len(strconv.Itoa(max(len(oldLines), len(newLines))))
	var disp, patch strings.Builder
	fmt.Fprintf(&patch, "--- %s\n+++ %s\n", path, path)
	// Group hunks whose context windows touch.
	for i := 0; i < len(hunks); {
		j := i
		for j+1 < len(hunks) && hunks[j+1].oldStart-hunks[j].oldEnd <= 2*diffContext {
			j++
		}
		first, last := hunks[i], hunks[j]
		cs := max(first.oldStart-diffContext, 0)
		ce := min(last.oldEnd+diffContext, len(oldLines))
		nsStart := first.newStart - (first.oldStart - cs)
		oldCount := ce - cs
		newCount := oldCount
		for _, h := range hunks[i : j+1] {
			newCount += (h.newEnd - h.newStart) - (h.oldEnd - h.oldStart)
		}
		fmt.Fprintf(&patch, "@@ -%s +%s @@\n", rangeSpec(cs, oldCount), rangeSpec(nsStart, newCount))
		if disp.Len() > 0 {
			fmt.Fprintf(&disp, " %*s ...\n", width, "")
		}
		o, n := cs, nsStart
		for _, h := range hunks[i : j+1] {
			for ; o < h.oldStart; o, n = o+1, n+1 {
				writeLine(&patch, ' ', oldLines[o])
				fmt.Fprintf(&disp, " %*d %s\n", width, o+1, strings.TrimSuffix(oldLines[o], "\n"))
			}
			for ; o < h.oldEnd; o++ {
				writeLine(&patch, '-', oldLines[o])
				fmt.Fprintf(&disp, "-%*d %s\n", width, o+1, strings.TrimSuffix(oldLines[o], "\n"))
			}
			for ; n < h.newEnd; n++ {
				writeLine(&patch, '+', newLines[n])
				fmt.Fprintf(&disp, "+%*d %s\n", width, n+1, strings.TrimSuffix(newLines[n], "\n"))
			}
		}
		for ; o < ce; o, n = o+1, n+1 {
			writeLine(&patch, ' ', oldLines[o])
			fmt.Fprintf(&disp, " %*d %s\n", width, o+1, strings.TrimSuffix(oldLines[o], "\n"))
		}
		i = j + 1
	}
	return EditDetails{
		Diff:             strings.TrimSuffix(disp.String(), "\n"),
		Patch:            patch.String(),
		FirstChangedLine: hunks[0].newStart + 1,
	}
}

// rangeSpec is a unified-diff range: 1-based start and count, with the
// conventions for empty ranges.
func rangeSpec(start, count int) string {
	switch count {
	case 0:
		return fmt.Sprintf("%d,0", start)
	case 1:
		return strconv.Itoa(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, count)
}

func writeLine(b *strings.Builder, mark byte, line string) {
	b.WriteByte(mark)
	b.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}

// splitKeep splits s into lines that keep their newline.
func splitKeep(s string) []string {
	if s == "" {
		return nil
	}
	out := make([]string, 0, strings.Count(s, "\n")+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
