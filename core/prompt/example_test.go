package prompt_test

import (
	"fmt"

	"github.com/piwasm/pi/core/prompt"
)

// Build turns options into named sections; Render joins them with blank
// lines. A custom prompt replaces the preamble and drops tools, rules and
// docs; extra sections land by order.
func ExampleBuild() {
	order := 650.0
	a, err := prompt.Build(prompt.Options{
		CustomPrompt: "You review Go code.",
		Cwd:          "/src/app",
		Sections: []prompt.SectionSpec{
			{Name: "ticket", Text: "Ticket: {{ticket}}", Order: &order, Interpolate: true, Source: "settings:team.json"},
		},
		Variables: []prompt.Variable{{Name: "ticket", Value: prompt.Str("DEMO-42")}},
	})
	if err != nil {
		panic(err)
	}
	r, err := prompt.Render(a)
	if err != nil {
		panic(err)
	}
	for _, s := range r.Sections {
		fmt.Printf("%-9s %4g %s\n", s.Name, s.Order, s.Source)
	}
	fmt.Println("---")
	fmt.Println(r.Text)
	// Output:
	// preamble     0 cli
	// ticket     650 settings:team.json
	// cwd        700 builtin
	// ---
	// You review Go code.
	//
	// Ticket: DEMO-42
	//
	// <cwd>
	// /src/app
	// </cwd>
}

// DiffSections is what a system message records: changed or new sections
// first, then removals.
func ExampleDiffSections() {
	prev := prompt.Patches{{Name: "preamble", Text: prompt.Str("P")}, {Name: "docs", Text: prompt.Str("D")}}
	next := prompt.Patches{{Name: "preamble", Text: prompt.Str("P2")}, {Name: "cwd", Text: prompt.Str("C")}}
	for _, p := range prompt.DiffSections(prev, next) {
		if p.Text == nil {
			fmt.Println(p.Name, "removed")
			continue
		}
		fmt.Println(p.Name, "=", *p.Text)
	}
	// Output:
	// preamble = P2
	// cwd = C
	// docs removed
}

// Decide says how a newly rendered prompt enters the request history.
func ExampleDecide() {
	head := []prompt.Node{{Seq: 0, Text: prompt.Str("v1")}}
	fmt.Println(prompt.Decide(nil, "v1", true, false))   // first request: reserve the slot
	fmt.Println(prompt.Decide(head, "v1", true, false))  // unchanged: nothing
	fmt.Println(prompt.Decide(head, "v2", true, false))  // capable route: append an update
	fmt.Println(prompt.Decide(head, "v2", false, false)) // other routes: rewrite the head
	// Output:
	// [{append 0 v1}]
	// []
	// [{append 0 v2}]
	// [{replace 0 v2}]
}
