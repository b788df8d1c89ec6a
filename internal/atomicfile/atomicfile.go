package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data, mode perm. It writes a temporary file in the
// same directory, syncs it, renames it over path and syncs the directory, so
// that the rename itself is on disk. The directory must exist. On any error
// path is left as it was and the temporary file is removed.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name()
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(name)
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	// CreateTemp makes the file 0600; set the wanted mode before the name
	// appears, so nobody can open it with the wrong permissions.
	if err = tmp.Chmod(perm); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(name, path); err != nil {
		return err
	}
	return syncDir(dir)
}
