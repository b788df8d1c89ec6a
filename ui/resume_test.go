package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/ui/render"
)

func TestSessionSearch(t *testing.T) {
	now := time.Now()
	list := []searchable{
		{s: SessionInfo{ID: "s1", Path: "/s/1", Cwd: "/work/proj", First: "fix the parser bug", Modified: now}, text: "fix the parser bug done, the lexer too"},
		{s: SessionInfo{ID: "s2", Path: "/s/2", Cwd: "/work/proj", Name: "Lexer Work", First: "write tests", Modified: now.Add(-time.Hour)}, text: "write tests ok"},
		{s: SessionInfo{ID: "s3", Path: "/s/3", Cwd: "/work/zoo", First: "explain zebra stripes", Modified: now.Add(-2 * time.Hour)}, text: "explain zebra   stripes they confuse predators"},
	}
	for _, c := range []struct {
		query  string
		recent bool
		want   string
	}{
		{"zeb", false, "s3"},                // message text
		{"lexer", false, "s2 s1"},           // the name ranks above the text
		{"lexer", true, "s1 s2"},            // recent: filter only, order kept
		{"lxw", false, "s2"},                // scattered letters of the name
		{`"zebra stripes"`, false, "s3"},    // a phrase, white space folded
		{`"stripes zebra"`, false, ""},      // a phrase keeps its order
		{"re:^write", false, "s2"},          // regex: s2's text starts so
		{"re:(", false, ""},                 // a bad pattern matches nothing
		{"zoo predators", false, "s3"},      // words match different fields
		{`"zebra stripes`, false, ""},       // unclosed quote: plain words, "zebra" and "stripes
		{"s1", false, "s1"},                 // the id
		{"nothing-like-this", false, ""},    //
		{"", false, "s1 s2 s3"},             // no query: all
		{"PARSER", false, "s1"},             // case does not matter
		{`parser "the lexer"`, false, "s1"}, //
	} {
		var ids []string
		for _, s := range filterSessions(list, c.query, c.recent) {
			ids = append(ids, s.ID)
		}
		if got := strings.Join(ids, " "); got != c.want {
			t.Errorf("search %q (recent %v) = %q, want %q", c.query, c.recent, got, c.want)
		}
	}
}

func TestThreadedSessions(t *testing.T) {
	now := time.Now()
	list := []SessionInfo{
		{Path: "/s/a", First: "a", Modified: now.Add(-1 * time.Hour)},
		{Path: "/s/b", First: "b", Modified: now.Add(-5 * time.Hour)},
		{Path: "/s/c", First: "c", Modified: now.Add(-6 * time.Hour)},
		// b's forks: d is the latest activity of all, so b's thread
		// comes first.
		{Path: "/s/d", First: "d", Parent: "/s/b", Modified: now},
		{Path: "/s/e", First: "e", Parent: "/s/b", Modified: now.Add(-3 * time.Hour)},
		{Path: "/s/f", First: "f", Parent: "/s/d", Modified: now.Add(-4 * time.Hour)},
		// A parent that is not listed: a root.
		{Path: "/s/g", First: "g", Parent: "/gone", Modified: now.Add(-7 * time.Hour)},
	}
	p := &sessionPicker{h: &Host{}, now: func() time.Time { return now }}
	p.rows = threadSessions(list)
	var got []string
	for _, r := range p.rows {
		got = append(got, r.s.First)
	}
	if strings.Join(got, "") != "bdfeacg" {
		t.Fatalf("threaded order = %v", got)
	}
	view := p.view(60, render.Plain())
	for _, want := range []string{"› b ", "     ├─ d", "     │  └─ f", "     └─ e", "  a "} {
		if !strings.Contains(view, want) {
			t.Errorf("the tree lacks %q:\n%s", want, view)
		}
	}
}

func TestSessionPickerPaging(t *testing.T) {
	now := time.Now()
	var list []SessionInfo
	for i := range 25 {
		list = append(list, SessionInfo{Path: fmt.Sprintf("/s/%02d", i), First: fmt.Sprintf("topic %02d", i), Messages: i, Modified: now.Add(-time.Duration(i) * time.Hour)})
	}
	h := &Host{Sessions: func(bool) ([]SessionInfo, error) { return list, nil }}
	p := newSessionPicker(h, "", true)
	p.now = func() time.Time { return now }
	view := p.view(80, render.Plain())
	if !strings.Contains(view, "topic 09") || strings.Contains(view, "topic 10") || !strings.Contains(view, "(1/25)") {
		t.Fatalf("the first page:\n%s", view)
	}
	p.key("pgdown")
	view = p.view(80, render.Plain())
	if !strings.Contains(view, "› topic 10") || !strings.Contains(view, "(11/25)") || strings.Contains(view, "topic 04") {
		t.Fatalf("after page down:\n%s", view)
	}
	p.key("pgdown")
	p.key("pgdown")
	if path, done := p.key("enter"); !done || path != "/s/24" {
		t.Fatalf("enter at the end chose %q, %v", path, done)
	}
	// Rows show the message count and age, right-aligned.
	if !strings.Contains(view, "10 10h") {
		t.Errorf("row without count and age:\n%s", view)
	}
}

// FuzzSessionQuery: any query parses and matches without a panic.
func FuzzSessionQuery(f *testing.F) {
	for _, q := range []string{"zeb", `"a phrase" word`, `"open`, "re:^x(", "re:", "v2 2v", "ünï ćödé"} {
		f.Add(q, "Some Name", "some text")
	}
	f.Fuzz(func(t *testing.T, q, name, text string) {
		filterSessions([]searchable{{s: SessionInfo{ID: "id", Name: name, Cwd: "/w"}, text: text}}, q, false)
		fuzzyScore(q, name)
	})
}

// A listing that worked but could not keep its index shows both.
func TestSessionPickerListingProblem(t *testing.T) {
	h := &Host{Sessions: func(bool) ([]SessionInfo, error) {
		return []SessionInfo{{Path: "/s/1", First: "still listed", Modified: time.Now()}}, errors.New("session index /a/session-index.json: permission denied")
	}}
	view := newSessionPicker(h, "", false).view(100, render.Plain())
	if !strings.Contains(view, "still listed") || !strings.Contains(view, "permission denied") {
		t.Fatalf("the list or its problem is missing:\n%s", view)
	}
}
