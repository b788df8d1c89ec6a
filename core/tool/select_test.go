package tool

import (
	"context"
	"strings"
	"testing"
)

func testRegistry(t *testing.T) *Registry {
	t.Helper()
	run := func(context.Context, Call, Update) (Result, error) { return TextResult(""), nil }
	r := NewRegistry()
	for _, n := range []string{"read", "bash", "edit", "write", "grep", "find", "ls"} {
		if err := r.Add(Tool{Name: n, Source: SourceBuiltin, Run: run}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"mcp_a", "todo"} {
		if err := r.Add(Tool{Name: n, Source: "extension:x", Run: run}); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func TestSelect(t *testing.T) {
	defaults := []string{"read", "bash", "edit", "write"}
	cases := []struct {
		name string
		sel  Selection
		want string // comma list; "ERR:text" for an error
	}{
		{"defaults and extension tools", Selection{}, "read,bash,edit,write,mcp_a,todo"},
		{"allowlist replaces", Selection{Tools: []string{"grep", "read"}}, "read,grep"},
		{"allowlist pattern", Selection{Tools: []string{"mcp_*", "ls"}}, "ls,mcp_a"},
		{"modifiers change defaults", Selection{Tools: []string{"+grep", "-write"}}, "read,bash,edit,grep,mcp_a,todo"},
		{"modifier removes extension tool", Selection{Tools: []string{"-todo"}}, "read,bash,edit,write,mcp_a"},
		{"exclude pattern last", Selection{Tools: []string{"*"}, Exclude: []string{"e*", "bash"}}, "read,write,grep,find,ls,mcp_a,todo"},
		{"no builtin keeps extensions", Selection{NoBuiltin: true}, "mcp_a,todo"},
		{"no builtin plus names", Selection{NoBuiltin: true, Tools: []string{"+read"}}, "read,mcp_a,todo"},
		{"no tools", Selection{NoTools: true}, ""},
		{"no tools with allowlist", Selection{NoTools: true, Tools: []string{"read"}}, "read"},
		{"no tools with modifiers", Selection{NoTools: true, Tools: []string{"+ls"}}, "ls"},
		{"unknown name", Selection{Tools: []string{"read", "nope", "zap"}}, "ERR:unknown tools: nope, zap"},
		{"unknown modifier", Selection{Tools: []string{"+nope"}}, "ERR:unknown tool: nope"},
		{"unknown exclude", Selection{Exclude: []string{"nah"}}, "ERR:unknown tool: nah"},
		{"pattern matching nothing is fine", Selection{Tools: []string{"zz*"}}, ""},
		{"mixed kinds", Selection{Tools: []string{"read", "+ls"}}, "ERR:cannot be mixed"},
		{"pattern in modifier", Selection{Tools: []string{"+l*"}}, "ERR:not patterns: +l*"},
	}
	r := testRegistry(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := r.Select(c.sel, defaults)
			if strings.HasPrefix(c.want, "ERR:") {
				if err == nil || !strings.Contains(err.Error(), c.want[4:]) {
					t.Fatalf("want error with %q, got %v %v", c.want[4:], got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := strings.Join(got, ","); s != c.want {
				t.Fatalf("got %q want %q", s, c.want)
			}
		})
	}
}

func TestRegistryAdd(t *testing.T) {
	r := testRegistry(t)
	run := func(context.Context, Call, Update) (Result, error) { return Result{}, nil }
	for _, c := range []struct {
		tool Tool
		has  string
	}{
		{Tool{Name: "Read", Run: run, Source: "extension:y"}, "must match"},
		{Tool{Name: "9x", Run: run}, "must match"},
		{Tool{Name: "x-y", Run: run}, "must match"},
		{Tool{Name: "fine"}, "no run function"},
		{Tool{Name: "todo", Run: run, Source: "extension:y"}, `tool "todo" from extension:y is already registered by extension:x`},
	} {
		if err := r.Add(c.tool); err == nil || !strings.Contains(err.Error(), c.has) {
			t.Errorf("%s: got %v, want %q", c.tool.Name, err, c.has)
		}
	}
	if got := strings.Join(r.Names(), ","); got != "read,bash,edit,write,grep,find,ls,mcp_a,todo" {
		t.Fatalf("order %s", got)
	}
	if _, ok := r.Get("todo"); !ok {
		t.Fatal("todo missing")
	}
}

func TestResultHelpers(t *testing.T) {
	r := ErrorResult("bad %d", 3)
	if !r.IsError || r.Text() != "bad 3" {
		t.Fatalf("%+v", r)
	}
	r = Result{Content: []Part{{Type: "text", Text: "a"}, {Type: "image", Data: "x"}, {Type: "text", Text: "b"}}}
	if r.Text() != "a\nb" {
		t.Fatalf("%q", r.Text())
	}
}
