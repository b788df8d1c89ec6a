package tool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestAPISmoke(t *testing.T) {
	run := func(context.Context, Call, Update) (Result, error) { return TextResult("ok"), nil }
	r := NewRegistry()
	for _, n := range []string{"read", "bash", "edit", "write", "grep"} {
		if err := r.Add(Tool{Name: n, Source: SourceBuiltin, Run: run}); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Add(Tool{Name: "read", Source: "extension:x", Run: run}); err == nil || !strings.Contains(err.Error(), "extension:x") || !strings.Contains(err.Error(), "builtin") {
		t.Fatalf("dup: %v", err)
	}
	got, err := r.Select(Selection{}, []string{"read", "bash", "edit", "write"})
	if err != nil || strings.Join(got, ",") != "read,bash,edit,write" {
		t.Fatalf("%v %v", got, err)
	}
	tl := Tool{Name: "x", Parameters: json.RawMessage(`{"type":"object","required":["n"],"properties":{"n":{"type":"number"}}}`)}
	a, err := tl.Prepare(json.RawMessage(`{"n":"42"}`))
	if err != nil || a["n"] != 42.0 {
		t.Fatalf("%v %v", a, err)
	}
	if _, err := tl.Prepare(json.RawMessage(`{"n":"x"}`)); err == nil {
		t.Fatal("want error")
	}
	tr := TruncateHead("a\nb\nc\n", 2, 100)
	if tr.Text != "a\nb" || !tr.Truncated {
		t.Fatalf("%+v", tr)
	}
	tr = TruncateTail("a\nb\nc\n", 2, 100)
	if tr.Text != "b\nc" || !tr.Truncated {
		t.Fatalf("%+v", tr)
	}
}
