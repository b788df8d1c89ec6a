package resources

import (
	"path/filepath"
	"testing"

	"github.com/piwasm/pi/core/settings"
)

// extensionConfig: an object of extension names to objects; a bad entry is
// reported and left out; the project layer's keys replace the global ones
// and keep a null (which removes the manifest's key at load).
func TestExtensionConfigSettings(t *testing.T) {
	dir := t.TempDir()
	global, proj := filepath.Join(dir, "g.json"), filepath.Join(dir, "p.json")
	writeTree(t, map[string]string{
		global: `{"extensionConfig": {"guard": {"a": 1, "b": "x"}, "bad": [1], "other": {"k": true}}}`,
		proj:   `{"extensionConfig": {"guard": {"b": null, "c": "y"}}}`,
	})
	g, _, ds := loadSettingsFile(global, dir, settings.FileGlobal, settings.Builtin())
	if len(ds) != 1 || ds[0].Line != 1 {
		t.Fatalf("diagnostics %v", ds)
	}
	p, _, ds := loadSettingsFile(proj, dir, settings.FileProject, settings.Builtin())
	if len(ds) != 0 {
		t.Fatalf("diagnostics %v", ds)
	}
	m := mergeSettings(g, p).ExtensionConfig
	guard := m["guard"]
	if len(m) != 2 || string(guard["a"]) != "1" || string(guard["b"]) != "null" || string(guard["c"]) != `"y"` || string(m["other"]["k"]) != "true" {
		t.Fatalf("merged %q", m)
	}
	if string(g.ExtensionConfig["guard"]["b"]) != `"x"` {
		t.Fatal("merging changed the global layer")
	}
}
