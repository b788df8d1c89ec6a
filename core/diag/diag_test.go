package diag

import (
	"encoding/json"
	"testing"
)

// One format for every producer: resources used to print "kind: path:line:
// message" and the host "path: kind: message"; both now read the same.
func TestString(t *testing.T) {
	cases := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{Kind: "warning", Path: "/p/settings.json", Line: 3, Message: "variable left out"}, "warning: /p/settings.json:3: variable left out"},
		{Diagnostic{Kind: "compile", Path: "/x/ext.wasm", Extension: "x", Message: "bad magic"}, "compile: /x/ext.wasm: bad magic"},
		{Diagnostic{Kind: "error", Extension: "greeter", Message: "failed in input"}, "error: extension:greeter: failed in input"},
		{Diagnostic{Kind: "error", Line: 4, Message: "building the prompt: x"}, "error: building the prompt: x"},
		{Diagnostic{Kind: "skipped", Message: ""}, "skipped: "},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		if got := c.d.String(); got != c.want {
			t.Errorf("%+v: String() = %q, want %q", c.d, got, c.want)
		}
	}
}

// The JSON shape is what `--json` modes emit: path always present, line and
// extension only when known.
func TestJSON(t *testing.T) {
	b, err := json.Marshal(Diagnostic{Kind: "error", Extension: "x", Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"kind":"error","path":"","extension":"x","message":"m"}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}
