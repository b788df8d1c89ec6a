package resources

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An -e path that is missing says so; a file says it is not a directory.
func TestExplicitExtensionPathDiagnostics(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	cases := []struct{ path, want string }{
		{missing, "does not exist"},
		{file, "is not a directory"},
	}
	for _, c := range cases {
		_, ds := findExtensionDirs(extensionSearch{Cwd: dir, Paths: []string{c.path}})
		if len(ds) != 1 || ds[0].Path != c.path || !strings.Contains(ds[0].Message, c.want) {
			t.Errorf("%s: diagnostics %v, want one saying %q", c.path, ds, c.want)
		}
	}
}
