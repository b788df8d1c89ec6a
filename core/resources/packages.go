package resources

import (
	"os"
	"path/filepath"

	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/core/packages"
	"github.com/piwasm/pi/core/settings"
)

// Package is an installed package of the established format that a
// settings file declares, with the resources it contributes to this run.
type Package struct {
	// Source is the entry as the settings file writes it; Scope "user" or
	// "project"; Dir where the package is.
	Source    string             `json:"source"`
	Scope     string             `json:"scope"`
	Dir       string             `json:"dir"`
	Resources packages.Resources `json:"resources"`
}

// findPackages resolves the "packages" lists of the settings layers in
// force (the project's only when it is trusted, since only then is its
// layer read): each entry's installed directory and the resources it
// offers, narrowed by the entry's filters. A project entry replaces a user
// entry of the same package. An entry that is not installed yet is a
// warning naming the command that installs it; one that pi installed as
// a WebAssembly extension package (pi-packages.json) is left to the
// extension loader.
func findPackages(values *settings.Settings, agentDir, projectDir, home string) ([]Package, []diag.Diagnostic) {
	var ds diagnostics
	var out []Package
	index := map[string]int{}
	lock, _ := packages.ReadLock(agentDir)
	for _, v := range values.Layers("packages") {
		decl, errs := packages.ParseDeclared(v.Raw)
		for _, err := range errs {
			ds.add(KindWarning, v.File, "%v", err)
		}
		scope, base := "user", agentDir
		if v.Scope == settings.FileProject {
			scope, base = "project", projectDir
		}
		for _, d := range decl {
			src, err := packages.Parse(d.Source, filepath.Dir(v.File), home)
			if err != nil {
				ds.add(KindWarning, v.File, "%v", err)
				continue
			}
			dir, err := packages.InstallDir(base, src)
			if err != nil {
				ds.add(KindWarning, v.File, "%v", err)
				continue
			}
			if wasmPackage(lock, d.Source, dir) {
				continue
			}
			if !isDir(dir) {
				flag := ""
				if scope == "project" {
					flag = " -l"
				}
				ds.add(KindWarning, v.File, "package %s is not installed (pi install%s %s fetches it)", d.Source, flag, d.Source)
				continue
			}
			res, err := packages.ReadResources(dir)
			if err != nil {
				ds.add(KindWarning, dir, "%v", err)
				continue
			}
			for kind, pats := range d.Filters {
				l := res.Of(kind)
				*l = packages.Filter(dir, *l, pats)
			}
			p := Package{Source: d.Source, Scope: scope, Dir: dir, Resources: res}
			id := packages.Identity(src)
			if i, ok := index[id]; ok {
				out[i] = p
				continue
			}
			index[id] = len(out)
			out = append(out, p)
		}
	}
	return out, ds
}

// wasmPackage reports whether a declared source is a WebAssembly extension
// package: recorded in pi's own lock, or a directory holding a manifest.
func wasmPackage(lock *packages.Lock, source, dir string) bool {
	if lock != nil {
		for _, e := range lock.Entries {
			if e.Source == source {
				return true
			}
		}
	}
	_, err := os.Stat(filepath.Join(dir, "extension.yaml"))
	return err == nil
}
