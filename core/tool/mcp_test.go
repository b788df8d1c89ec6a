package tool

import (
	"context"
	"strings"
	"testing"
)

// MCP tools keep their capitals under the MCP name rule, their mcp__
// names are theirs alone, and an allowlist filters them only when one of
// its entries starts with mcp__ (the established harness's --tools).
func TestMCPTools(t *testing.T) {
	run := func(context.Context, Call, Update) (Result, error) { return TextResult(""), nil }
	r := testRegistry(t)
	for _, n := range []string{"mcp__gh__createIssue", "mcp__fs__read_file"} {
		if err := r.Add(Tool{Name: n, Source: SourceMCP + strings.Split(n, "__")[1], Run: run}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Add(Tool{Name: "mcp__x__y", Source: "extension:evil", Run: run}); err == nil || !strings.Contains(err.Error(), "reserved for MCP servers") {
		t.Errorf("an extension took an mcp__ name: %v", err)
	}
	if err := r.Add(Tool{Name: "Capital", Source: "extension:x", Run: run}); err == nil {
		t.Errorf("an extension tool with a capital was accepted")
	}
	if err := r.Add(Tool{Name: "mcp__bad name", Source: SourceMCP + "bad", Run: run}); err == nil {
		t.Errorf("an MCP tool with a space was accepted")
	}
	defaults := []string{"read", "bash", "edit", "write"}
	for _, tc := range []struct {
		sel  Selection
		want string
	}{
		{Selection{}, "read,bash,edit,write,mcp_a,todo,mcp__gh__createIssue,mcp__fs__read_file"},
		{Selection{Tools: []string{"read"}}, "read,mcp__gh__createIssue,mcp__fs__read_file"},
		{Selection{Tools: []string{"read", "mcp__gh__*"}}, "read,mcp__gh__createIssue"},
		{Selection{Tools: []string{"read", "mcp__later__tool"}}, "read"}, // a server not connected yet is no error
		{Selection{Exclude: []string{"mcp__*"}}, "read,bash,edit,write,mcp_a,todo"},
		{Selection{NoTools: true}, ""},
	} {
		got, err := r.Select(tc.sel, defaults)
		if err != nil || strings.Join(got, ",") != tc.want {
			t.Errorf("%+v: %v %v, want %s", tc.sel, got, err, tc.want)
		}
	}
}
