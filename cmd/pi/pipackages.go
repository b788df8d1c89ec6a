package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/packages"
	"github.com/piwasm/pi/core/resources"
)

// Packages of the established format (package.json with a "pi" key, or
// the conventional folders): installed where the established harness puts
// them and declared in settings.json's "packages", so that both harnesses
// see the same installs (core/packages).

// isPiPackage reports whether dir is a package of the established format.
func isPiPackage(dir string) bool {
	if packages.HasPackageJSON(dir) {
		return true
	}
	for _, k := range packages.ResourceKinds {
		if fi, err := os.Stat(filepath.Join(dir, k)); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

// pkgBase is where packages of a scope are installed and declared: the
// agent dir and its settings.json, or the project's .pi and its
// settings.json.
func (a *app) pkgBase(project string) (base, settingsFile string) {
	base = a.agentDir()
	if project != "" {
		base = resources.ProjectDir(project)
	}
	return base, filepath.Join(base, "settings.json")
}

// npmCommand is the settings' npmCommand (nil: npm).
func (a *app) npmCommand(project string) []string {
	cwd := project
	if cwd == "" {
		cwd = a.wd
	}
	l, err := a.load(&common{cwd: cwd})
	if err != nil || l.Values == nil {
		return nil
	}
	return l.Values.Strings("npmCommand")
}

func (a *app) installPiPackage(ctx context.Context, src packages.Source, fetched packages.Fetched, project string) error {
	base, file := a.pkgBase(project)
	placed, err := packages.Place(ctx, src, fetched, base, a.npmCommand(project))
	if err != nil {
		return err
	}
	changed, err := packages.Record(file, src, a.home)
	if err != nil {
		return fmt.Errorf("record it in %s: %w", file, err)
	}
	name := placed.Manifest.Name
	if name == "" {
		name = filepath.Base(placed.Dir)
	}
	version := placed.Manifest.Version
	if fetched.Version != "" {
		version = fetched.Version
	}
	pin := ""
	if fetched.Commit != "" {
		pin = " at commit " + fetched.Commit[:min(12, len(fetched.Commit))]
	}
	verb := "installed"
	if !changed && src.Kind == packages.Local {
		verb = "already installed:"
	}
	fmt.Fprintf(a.stdout, "%s %s %s from %s%s\n  in %s: %s\n", verb, esc(name), esc(version), esc(src.Spec), pin, esc(placed.Dir), resourceCounts(placed.Resources))
	if changed {
		fmt.Fprintf(a.stdout, "  declared in %s\n", file)
	}
	if placed.Dependencies {
		fmt.Fprintln(a.stdout, "  its npm dependencies were fetched into its node_modules without running their install scripts")
	}
	if len(placed.Resources.Extensions) > 0 {
		fmt.Fprintln(a.stdout, "  its extensions run in pi's sandbox; pi ext list shows what they ask for")
	}
	if project != "" {
		if trusted, _, _ := resources.StoredTrust(a.agentDir(), project); !trusted {
			fmt.Fprintf(a.stdout, "note: project packages load only in trusted projects (pi trust %s)\n", shellWord(project))
		}
	}
	return nil
}

// resourceCounts says what a package offers, as "2 extensions, 1 skill".
func resourceCounts(r packages.Resources) string {
	var parts []string
	for _, k := range packages.ResourceKinds {
		n := len(*r.Of(k))
		if n == 0 {
			continue
		}
		word := k
		if n == 1 {
			word = strings.TrimSuffix(k, "s")
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, word))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// declaredPkg is one "packages" entry of a scope's settings file.
type declaredPkg struct {
	Source string
	Src    packages.Source
	Dir    string
	// Name is the installed package's name (its package.json), or the
	// directory's name.
	Name string
	File string
}

// declaredPackages lists the packages of the established format a scope's
// settings file declares (those pi installed as WebAssembly extension
// packages, in its lock, are left out).
func (a *app) declaredPackages(project string, lock *packages.Lock) ([]declaredPkg, error) {
	base, file := a.pkgBase(project)
	decl, err := packages.DeclaredIn(file)
	if err != nil {
		return nil, err
	}
	var out []declaredPkg
	for _, d := range decl {
		if lock != nil {
			if _, ok := lock.FindSource(d.Source, project); ok {
				continue
			}
		}
		src, err := packages.Parse(d.Source, filepath.Dir(file), a.home)
		if err != nil {
			continue
		}
		dir, err := packages.InstallDir(base, src)
		if err != nil {
			continue
		}
		name := filepath.Base(dir)
		if m, ok, _ := packages.ReadManifest(dir); ok && m.Name != "" {
			name = m.Name
		}
		out = append(out, declaredPkg{Source: d.Source, Src: src, Dir: dir, Name: name, File: file})
	}
	return out, nil
}

// is reports whether want names the package: its name, its source as
// written, or another way of writing the same source.
func (d declaredPkg) is(want, wd, home string) bool {
	if want == d.Name || want == d.Source {
		return true
	}
	src, err := packages.Parse(want, wd, home)
	return err == nil && packages.Identity(src) == packages.Identity(d.Src)
}

// removeDeclared removes a package of the established format: its entry
// in the scope's settings file and, unless it is local, its installed
// files. false when the scope declares no such package.
func (a *app) removeDeclared(want, project string, lock *packages.Lock) (bool, error) {
	decl, err := a.declaredPackages(project, lock)
	if err != nil {
		return false, err
	}
	base, file := a.pkgBase(project)
	for _, d := range decl {
		if !d.is(want, a.wd, a.home) {
			continue
		}
		if _, err := packages.Unrecord(file, d.Src, a.home); err != nil {
			return false, err
		}
		if err := packages.Uninstall(d.Src, base); err != nil {
			return false, err
		}
		where := "its files were left in " + d.Dir + " (a local package)"
		if d.Src.Kind != packages.Local {
			where = "deleted " + d.Dir
		}
		fmt.Fprintf(a.stdout, "removed %s (%s) from %s; %s\n", esc(d.Name), esc(d.Source), file, esc(where))
		return true, nil
	}
	return false, nil
}

// listDeclared lists the packages of the established format declared for
// the user and for the project of the working directory.
func (a *app) listDeclared(lock *packages.Lock) []packages.Entry {
	var out []packages.Entry
	for _, project := range []string{"", a.wd} {
		if project != "" {
			if _, err := os.Stat(filepath.Join(resources.ProjectDir(project), "settings.json")); err != nil {
				continue
			}
		}
		decl, _ := a.declaredPackages(project, lock)
		for _, d := range decl {
			e := packages.Entry{Name: d.Name, Source: d.Source, Kind: d.Src.Kind, Dir: d.Dir, Project: project}
			if m, ok, _ := packages.ReadManifest(d.Dir); ok {
				e.Version = m.Version
			}
			out = append(out, e)
		}
	}
	return out
}

// fetchOneOffs replaces each -e value that names an npm or git source with
// what the fetched package offers: a WebAssembly package's directory, or
// the extension entry files of a package of the established format (its
// skills and prompts join --skill and --prompt-template). The package is
// fetched once into the agent dir's cache and declared nowhere, as the
// established harness does for -e; a value that is a path is left alone.
func (a *app) fetchOneOffs(c *common) error {
	var out []string
	for _, spec := range c.extensions {
		if !packages.IsRemote(spec) {
			out = append(out, spec)
			continue
		}
		src, err := packages.Parse(spec, a.wd, a.home)
		if err != nil {
			return usagef("-e %s: %v", spec, err)
		}
		one, err := packages.FetchOneOff(context.Background(), src, a.agentDir(), a.npmCommand(""), a.offline())
		if err != nil {
			return fmt.Errorf("-e %s: %w", spec, err)
		}
		if one.Wasm {
			out = append(out, one.Dir)
			continue
		}
		out = append(out, one.Resources.Extensions...)
		c.skills = append(c.skills, one.Resources.Skills...)
		c.templates = append(c.templates, one.Resources.Prompts...)
	}
	c.extensions = out
	return nil
}
