package fspath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ErrChanged is wrapped by the errors of Open, ReadDir and MkdirAll when a
// component of the path is a symbolic link: the caller resolved the path
// and judged it, so a link there means it changed in between.
var ErrChanged = errors.New("a component of the path is now a symbolic link (it changed after it was checked)")

// ReadDir lists the directory path (absolute, resolved) sorted by name,
// refusing a symbolic link at any component.
func ReadDir(path string) ([]fs.DirEntry, error) {
	f, err := Open(path, os.O_RDONLY|dirFlag, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return ents, err
}

// components splits an absolute clean path into its names.
func components(path string) []string {
	path = filepath.ToSlash(filepath.Clean(path))
	path = strings.TrimPrefix(path, filepath.ToSlash(filepath.VolumeName(path)))
	path = strings.Trim(path, "/")
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

func pathErr(op, path string, err error) error {
	return &fs.PathError{Op: op, Path: path, Err: err}
}
