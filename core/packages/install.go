package packages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/piwasm/pi/core/settings"
)

// Placed is a package of the established format made ready to load.
type Placed struct {
	Dir       string
	Manifest  Manifest
	Resources Resources
	// Dependencies reports whether the npm command fetched dependencies.
	Dependencies bool
}

// NpmInstallArgs are the arguments pi gives the npm command to fetch a
// package's runtime dependencies into its own node_modules. Lifecycle
// scripts (install, postinstall, prepare, …) are never run: they would run
// the package's code on the machine with the user's full rights, outside
// any sandbox. Development and peer dependencies are not fetched (the
// host-provided packages are peers), and npm's audit and funding notices
// are kept out of pi's output.
var NpmInstallArgs = []string{"install", "--omit=dev", "--ignore-scripts", "--legacy-peer-deps", "--no-audit", "--no-fund", "--no-package-lock"}

// Place puts a fetched package of the established format where it is
// installed under base (see InstallDir), fetches its npm dependencies with
// npm (the settings' npmCommand, default ["npm"]) unless it is a local
// package (whose dependencies are its author's business, as in the
// established harness), and reads what it offers. A package that offers
// nothing is refused and removed again.
func Place(ctx context.Context, src Source, fetched Fetched, base string, npm []string) (Placed, error) {
	dir, err := InstallDir(base, src)
	if err != nil {
		return Placed{}, err
	}
	if src.Kind != Local {
		if err := replaceDir(fetched.Dir, dir); err != nil {
			return Placed{}, fmt.Errorf("install into %s: %w", dir, err)
		}
	}
	m, _, err := ReadManifest(dir)
	if err != nil {
		return Placed{}, err
	}
	p := Placed{Dir: dir, Manifest: m}
	if src.Kind != Local && len(m.Dependencies) > 0 {
		if len(npm) == 0 {
			npm = []string{"npm"}
		}
		args := append(append([]string{}, npm[1:]...), NpmInstallArgs...)
		if _, err := run(ctx, dir, npm[0], args...); err != nil {
			return Placed{}, fmt.Errorf("fetch its dependencies: %w", err)
		}
		p.Dependencies = true
	}
	res, err := ReadResources(dir)
	if err != nil {
		return Placed{}, err
	}
	if res.Empty() {
		if src.Kind != Local {
			os.RemoveAll(dir)
		}
		return Placed{}, fmt.Errorf("%s offers no extensions, skills, prompts or themes (none listed under \"pi\" in package.json, and no extensions/, skills/, prompts/ or themes/ folder)", src.Spec)
	}
	p.Resources = res
	return p, nil
}

// replaceDir moves from to to, replacing what was there; across file
// systems it copies.
func replaceDir(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	old := to + ".old"
	os.RemoveAll(old)
	hadOld := false
	if _, err := os.Lstat(to); err == nil {
		if err := os.Rename(to, old); err != nil {
			return err
		}
		hadOld = true
	}
	err := os.Rename(from, to)
	if err != nil {
		err = os.CopyFS(to, os.DirFS(from))
	}
	if err != nil {
		os.RemoveAll(to)
		if hadOld {
			os.Rename(old, to)
		}
		return err
	}
	return os.RemoveAll(old)
}

// Uninstall removes a package installed under base (a local package is
// not pi's to delete).
func Uninstall(src Source, base string) error {
	if src.Kind == Local {
		return nil
	}
	dir, err := InstallDir(base, src)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// SettingsSource is how a settings file at file writes src: a local path
// relative to the file's directory (as the established harness writes
// it), any other source as given.
func SettingsSource(src Source, file string) string {
	if src.Kind != Local {
		return src.Spec
	}
	if rel, err := filepath.Rel(filepath.Dir(file), src.Path); err == nil {
		return filepath.ToSlash(rel)
	}
	return src.Path
}

// Record adds src to the "packages" list of the settings file, or
// replaces the entry of the same package (see Identity), keeping that
// entry's filters. home resolves "~" in existing entries. It reports
// whether the list changed.
func Record(file string, src Source, home string) (bool, error) {
	items, err := readPackagesList(file)
	if err != nil {
		return false, err
	}
	want := SettingsSource(src, file)
	entry, _ := json.Marshal(want)
	id := Identity(src)
	for i, it := range items {
		d, _ := ParseDeclared(json.RawMessage("[" + string(it) + "]"))
		if len(d) != 1 {
			continue
		}
		old, err := Parse(d[0].Source, filepath.Dir(file), home)
		if err != nil || Identity(old) != id {
			continue
		}
		if d[0].Source == want {
			return false, nil
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(it, &obj) == nil {
			obj["source"] = entry
			items[i], _ = json.Marshal(obj)
		} else {
			items[i] = entry
		}
		return true, writePackagesList(file, items)
	}
	return true, writePackagesList(file, append(items, entry))
}

// Unrecord removes the entries of the package src names from the file's
// "packages" list; false when there was none.
func Unrecord(file string, src Source, home string) (bool, error) {
	items, err := readPackagesList(file)
	if err != nil {
		return false, err
	}
	id := Identity(src)
	var kept []json.RawMessage
	for _, it := range items {
		d, _ := ParseDeclared(json.RawMessage("[" + string(it) + "]"))
		if len(d) == 1 {
			if old, err := Parse(d[0].Source, filepath.Dir(file), home); err == nil && Identity(old) == id {
				continue
			}
		}
		kept = append(kept, it)
	}
	if len(kept) == len(items) {
		return false, nil
	}
	if kept == nil {
		kept = []json.RawMessage{}
	}
	return true, writePackagesList(file, kept)
}

// DeclaredIn lists the "packages" entries of one settings file.
func DeclaredIn(file string) ([]Declared, error) {
	items, err := readPackagesList(file)
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(items)
	d, _ := ParseDeclared(b)
	return d, nil
}

func readPackagesList(file string) ([]json.RawMessage, error) {
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("%s is not valid JSON (%v): fix it by hand first", file, err)
	}
	raw, ok := top["packages"]
	if !ok {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%s: packages must be a list", file)
	}
	return items, nil
}

func writePackagesList(file string, items []json.RawMessage) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(items)
	if err != nil {
		return err
	}
	return settings.SetInFile(file, "packages", b)
}
