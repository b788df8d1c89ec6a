package main

import (
	"fmt"
	"strings"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

// Entry is one glossary entry.
type Entry struct{ Term, Meaning string }

// Parse reads entries written one per line as "TERM: meaning" or as a
// markdown list item "- **TERM**: meaning" / "- TERM — meaning". Other
// lines (headings, prose) are skipped; an indented line continues the
// entry before it.
func Parse(text string) []Entry {
	var out []Entry
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if (strings.HasPrefix(line, "  ") || strings.HasPrefix(line, "\t")) && len(out) > 0 {
			out[len(out)-1].Meaning += " " + strings.TrimSpace(line)
			continue
		}
		l := strings.TrimSpace(line)
		l = strings.TrimPrefix(strings.TrimPrefix(l, "- "), "* ")
		term, meaning, ok := strings.Cut(l, ":")
		if !ok {
			term, meaning, ok = strings.Cut(l, " — ")
		}
		if !ok {
			continue
		}
		term = strings.Trim(strings.TrimSpace(term), "*_`")
		if term == "" || len(term) > 80 {
			continue
		}
		out = append(out, Entry{Term: term, Meaning: strings.TrimSpace(meaning)})
	}
	return out
}

// Lookup answers a query: the exact entries first, then entries whose term
// contains the query; an error result lists a few terms when nothing
// matches.
func Lookup(text, query, file string) abi.ToolResult {
	entries := Parse(text)
	q := strings.ToLower(query)
	var exact, partial []Entry
	for _, e := range entries {
		t := strings.ToLower(e.Term)
		switch {
		case t == q:
			exact = append(exact, e)
		case strings.Contains(t, q):
			partial = append(partial, e)
		}
	}
	if len(exact)+len(partial) == 0 {
		var known []string
		for i, e := range entries {
			if i == 20 {
				known = append(known, "…")
				break
			}
			known = append(known, e.Term)
		}
		msg := fmt.Sprintf("%q is not in the glossary (%s).", query, file)
		if len(known) > 0 {
			msg += " Known terms: " + strings.Join(known, ", ")
		}
		return sdk.ErrorResult(msg)
	}
	var b strings.Builder
	for _, e := range append(exact, partial...) {
		fmt.Fprintf(&b, "%s: %s\n", e.Term, e.Meaning)
	}
	return sdk.TextResult(strings.TrimSuffix(b.String(), "\n"))
}
