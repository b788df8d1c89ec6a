package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Manifest problems name the line and the key in the author's terms, never
// a Go type.
func TestManifestMessages(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"typo at top", "name: x\nabi: 1\nhooks: [input]\ncapabilites:\n  clock: true\n",
			`line 4: unknown key "capabilites" (did you mean "capabilities"?)`},
		{"typo nested", "name: x\nabi: 1\nhooks: [input]\ncapabilities:\n  clok: true\n",
			`line 5: unknown key "clok" under capabilities (did you mean "clock"?)`},
		{"typo in list item", "name: x\nabi: 1\nhooks: [command]\ncommands:\n  - name: c\n    descripton: d\n",
			`line 6: unknown key "descripton" under commands[0] (did you mean "description"?)`},
		{"far from any key", "name: x\nabi: 1\nhooks: [input]\nzzzzzzzzzzzz: 1\n",
			`line 4: unknown key "zzzzzzzzzzzz" (valid keys: name,`},
		{"unclosed list", "name: x\nabi: 1\nhooks: [input\nlimits: {}\n", "line 3: did not find expected ',' or ']'"},
		{"wrong type", "name: x\nabi: one\nhooks: [input]\n", `line 2: expected a number, found text "one"`},
		{"scalar for list", "name: x\nabi: 1\nhooks: input\n", `line 3: expected a list, found text "input"`},
		{"no hooks", "name: x\nabi: 1\n", "declares no hooks, commands or tools"},
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "extension.yaml"), []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			m, ds := ReadManifest(dir)
			if m != nil || len(ds) == 0 {
				t.Fatalf("accepted: %+v", m)
			}
			var all []string
			for _, d := range ds {
				all = append(all, d.Message)
				if strings.Contains(d.Message, "abi.") || strings.Contains(d.Message, "[]string") {
					t.Errorf("Go type in %q", d.Message)
				}
				if d.Path != filepath.Join(dir, "extension.yaml") {
					t.Errorf("path %q", d.Path)
				}
			}
			if !strings.Contains(strings.Join(all, "\n"), c.want) {
				t.Errorf("messages %q lack %q", all, c.want)
			}
		})
	}
}
