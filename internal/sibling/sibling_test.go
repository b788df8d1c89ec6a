package sibling

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestPath(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "pi")
	write := func(name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
	}
	ext := ""
	if runtime.GOOS == "windows" {
		ext = ".exe"
	}
	write("pi-ui"+ext, 0o755)
	write("plain"+ext, 0o644)
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		exe, name string
		ok        bool
	}{
		{exe, "pi-ui", true},
		{exe, "missing", false},
		{exe, "adir", false},
		{exe, "plain", runtime.GOOS == "windows"},
		{"", "pi-ui", false},
	} {
		p, err := Path(tc.exe, tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("Path(%q, %q) = %q, %v; want ok %v", tc.exe, tc.name, p, err, tc.ok)
		}
		if tc.ok && p != filepath.Join(dir, tc.name+ext) {
			t.Errorf("Path(%q, %q) = %q", tc.exe, tc.name, p)
		}
	}
}
