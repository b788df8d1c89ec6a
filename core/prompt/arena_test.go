package prompt

import (
	"strings"
	"testing"
)

// joinByCopy is what Render promises: the non-empty sections joined with a
// blank line.
func joinByCopy(r Rendered) string {
	parts := make([]string, len(r.Sections))
	for i, s := range r.Sections {
		parts[i] = s.Text
	}
	return strings.Join(parts, "\n\n")
}

// TestReviewArenaJoinAfterSplitStep: a waterfall step (an in-process
// prompt.Step) splits the built-in preamble in two at ". ", keeping both
// halves as slices of the original text. Both halves still lie in the arena
// exactly two bytes apart, so joinedFromArena accepts them and returns the
// arena bytes between them (". ") instead of the blank line the copy join
// puts there. Render's Text then disagrees with its own Sections.
func TestReviewArenaJoinAfterSplitStep(t *testing.T) {
	a, err := Build(Options{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Waterfall(a, func(cur *Assembly) (*Assembly, error) {
		pre, _ := cur.Section("preamble")
		first, second, ok := strings.Cut(pre.Text, ". ")
		if !ok {
			t.Fatalf("setup: preamble %q has no \". \"", pre.Text)
		}
		cur.Sections[0].Text = first // preamble is first; SetSection refuses its name
		return cur, cur.SetSection(Section{Name: "intro", Order: 50, Text: second, Source: "extension:split"}, false)
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Render(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(r); !strings.HasPrefix(got, "preamble,intro,tools") {
		t.Fatalf("setup: sections %s", got)
	}
	if want := joinByCopy(r); r.Text != want {
		t.Fatalf("Rendered.Text is not its sections joined by blank lines:\n got prefix %q\nwant prefix %q", r.Text[:120], want[:120])
	}
}

// TestReviewCompleteSectionsAddedByTheWaterfall: DESIGN §4 says two active
// complete sections are an error naming both, and a complete section is the
// whole prompt. Waterfall checks only the assembly it is given: complete
// sections that a step adds are rendered next to every other section, and
// two of them pass without an error.
func TestReviewCompleteSectionsAddedByTheWaterfall(t *testing.T) {
	a, err := Build(Options{Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Waterfall(a, func(cur *Assembly) (*Assembly, error) {
		cur.Sections = append(cur.Sections,
			Section{Name: "one", Order: 10, Text: "ONE", Complete: true, Source: "extension:x"},
			Section{Name: "two", Order: 20, Text: "TWO", Complete: true, Source: "extension:y"})
		return cur, nil
	})
	if err == nil {
		r, _ := Render(out)
		t.Fatalf("two complete sections after the waterfall gave no error; rendered sections: %s", names(r))
	}
}
