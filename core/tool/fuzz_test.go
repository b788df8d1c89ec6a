package tool

import (
	"encoding/json"
	"testing"
)

// FuzzPrepare feeds arbitrary arguments and schemas to Prepare: it must never
// panic, and whatever it accepts must satisfy the schema when checked again.
func FuzzPrepare(f *testing.F) {
	f.Add([]byte(`{"path":"a","edits":[{"oldText":"x","newText":"y"}]}`), []byte(editLike))
	f.Add([]byte(`{"n":"42","b":"true","edits":"[]"}`), []byte(editLike))
	f.Add([]byte(`{"r":{"r":{"r":1}}}`), []byte(`{"type":"object","properties":{"r":{"$ref":"#"}}}`))
	f.Add([]byte(`{"a":null}`), []byte(`{"anyOf":[{"type":"object"},{"type":"array"}]}`))
	f.Fuzz(func(t *testing.T, args, schema []byte) {
		tl := Tool{Name: "f", Parameters: schema}
		got, err := tl.Prepare(args)
		if err != nil {
			return
		}
		again, _ := json.Marshal(got)
		if _, err := tl.Prepare(again); err != nil {
			t.Fatalf("accepted %s as %s, which then fails: %v", args, again, err)
		}
	})
}
