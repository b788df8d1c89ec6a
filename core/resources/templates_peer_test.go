package resources

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestTemplatesMatchPeer loads the files the TypeScript pi loaded to write
// testdata/templates-peer/expected.json and expects the same description and
// content for each.
func TestTemplatesMatchPeer(t *testing.T) {
	dir := filepath.Join("testdata", "templates-peer")
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []struct{ File, Description, Content string }
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("no cases")
	}
	got, diags := loadTemplatesFromDir(filepath.Join(dir, "prompts"), "test")
	if len(diags) != 0 {
		t.Fatalf("diagnostics %v", diags)
	}
	byFile := map[string]Template{}
	for _, tp := range got {
		byFile[filepath.Base(tp.FilePath)] = tp
	}
	for _, w := range want {
		g, ok := byFile[w.File]
		if !ok {
			t.Errorf("%s: not loaded", w.File)
			continue
		}
		if g.Content != w.Content || g.Description != w.Description {
			t.Errorf("%s:\n got description %q content %q\nwant description %q content %q", w.File, g.Description, g.Content, w.Description, w.Content)
		}
	}
}
