package builtin

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"
)

var descField = regexp.MustCompile(`,"description":"(?:[^"\\]|\\.)*"`)

// TestSchemasMatchPeer compares each schema, descriptions removed, with the
// established harness's, text for text: names, types, required lists and key
// order must be equal so the same model output drives both.
// testdata/peer_schemas.txt was produced from the harness's own definitions.
func TestSchemasMatchPeer(t *testing.T) {
	f, err := os.Open("testdata/peer_schemas.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, schema, _ := strings.Cut(sc.Text(), " ")
		want[name] = schema
	}
	tools := Tools(Env{Cwd: t.TempDir()})
	if len(tools) != len(want) {
		t.Fatalf("%d tools, peer has %d", len(tools), len(want))
	}
	var order []string
	for _, tl := range tools {
		order = append(order, tl.Name)
		got := descField.ReplaceAllString(string(tl.Parameters), "")
		if got != want[tl.Name] {
			t.Errorf("%s schema\n got %s\nwant %s", tl.Name, got, want[tl.Name])
		}
		if !strings.Contains(string(tl.Parameters), `"description"`) {
			t.Errorf("%s has no descriptions", tl.Name)
		}
		if tl.Source != "builtin" || tl.Run == nil || tl.Description == "" {
			t.Errorf("%s incomplete", tl.Name)
		}
	}
	if strings.Join(order, ",") != "read,bash,edit,write,grep,find,ls" {
		t.Fatalf("order %v", order)
	}
	for _, n := range ReadOnlyNames {
		for _, tl := range tools {
			if tl.Name == n && !tl.Hints.ReadOnly {
				t.Errorf("%s should be read-only", n)
			}
		}
	}
}
