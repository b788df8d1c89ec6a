package packages

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnpackRefusesEscapes(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  byte
		want string
	}{
		{"../evil", tar.TypeReg, "outside the package"},
		{"/abs", tar.TypeReg, "outside the package"},
		{"package/link", tar.TypeSymlink, ""},
	} {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		tw.WriteHeader(&tar.Header{Name: c.name, Mode: 0o644, Size: 1, Typeflag: c.typ, Linkname: "/etc/passwd"})
		if c.typ == tar.TypeReg {
			tw.Write([]byte("x"))
		}
		tw.Close()
		zw.Close()
		dir := t.TempDir()
		tgz := filepath.Join(dir, "p.tgz")
		os.WriteFile(tgz, buf.Bytes(), 0o644)
		dest := filepath.Join(dir, "out")
		err := Unpack(tgz, dest)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			if _, err := os.Lstat(filepath.Join(dest, "package", "link")); !os.IsNotExist(err) {
				t.Errorf("a link was extracted")
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
