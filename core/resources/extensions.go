package resources

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/diag"
)

// extensionSearch says where [findExtensionDirs] looks; the fields mean what
// they mean in [skillSearch]. SettingsPaths are absolute; Paths are
// `--extension` values resolved against Cwd.
type extensionSearch struct {
	Cwd, AgentDir, Home string
	Trusted             bool
	SkipNote            string
	SettingsPaths       []string
	Paths               []string
}

// findExtensionDirs lists candidate extension package directories (and
// TypeScript/JavaScript extension files), in load order and without
// duplicates: each subdirectory and .ts/.js file of agent-dir extensions/,
// each subdirectory of project .pi/extensions/ (trusted projects only), the
// settings paths, then the explicit paths. Subdirectories whose name starts
// with a dot are passed over. An explicit or settings path that is not a
// directory yields a warning. Whether a directory really holds a package
// (extension.yaml and a module) is for the extension host to decide.
func findExtensionDirs(s extensionSearch) ([]string, []diag.Diagnostic) {
	var ds diagnostics
	var out []string
	seen := map[string]bool{}
	add := func(dir string) {
		if !seen[dir] {
			seen[dir] = true
			out = append(out, dir)
		}
	}
	subdirs := func(dir string) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if isDir(p) || isScriptExtension(p) {
				add(p)
			}
		}
	}
	cwd, _ := filepath.Abs(s.Cwd)
	if s.AgentDir != "" {
		if dir, err := filepath.Abs(filepath.Join(s.AgentDir, "extensions")); err == nil {
			subdirs(dir)
		}
	}
	if cwd != "" {
		proj := filepath.Join(ProjectDir(cwd), "extensions")
		if s.Trusted {
			subdirs(proj)
		} else if exists(proj) {
			note := s.SkipNote
			if note == "" {
				note = defaultSkipNote
			}
			ds.add(KindSkipped, proj, "%s", note)
		}
	}
	explicit := func(p string) {
		if !isDir(p) && !isScriptExtension(p) {
			if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
				ds.add(KindWarning, p, "extension path does not exist")
			} else {
				ds.add(KindWarning, p, "extension path is not a directory or a TypeScript/JavaScript file (an extension is a directory holding %s or index.ts, or a .ts/.js file)", "extension.yaml")
			}
			return
		}
		add(p)
	}
	for _, p := range s.SettingsPaths {
		explicit(p)
	}
	for _, p := range s.Paths {
		explicit(resolvePath(p, cwd, s.Home))
	}
	return out, ds
}

// isScriptExtension reports whether p is a TypeScript or JavaScript file,
// which the established harness loads as an extension (host/jsext runs it).
func isScriptExtension(p string) bool {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".ts", ".mts", ".js", ".mjs":
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	return false
}
