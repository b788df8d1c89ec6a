package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every key pi knows is in docs/configuration.md's table, so a key added
// to the tables is also explained to users.
func TestEveryKeyIsDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, k := range Builtin().Keys() {
		name := k.Name
		if i := strings.LastIndex(name, "."); i > 0 {
			// Nested keys may be documented as a group ("retry.provider.*").
			if strings.Contains(doc, "`"+name) || strings.Contains(doc, "`"+name[:i+1]) {
				continue
			}
		} else if strings.Contains(doc, "`"+name+"`") {
			continue
		}
		t.Errorf("settings key %q is not in docs/configuration.md", k.Name)
	}
}
