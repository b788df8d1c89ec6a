package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/piwasm/pi/core/packages"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/host"
	"github.com/spf13/pflag"
)

// pi install | remove | update | list: extension packages from a local
// directory, a git repository pinned to a commit, or an npm package, each
// pinned in the agent dir's lock by its module's SHA-256 (core/packages).

type pkgFlags struct {
	local bool
	yes   bool
	cwd   string
}

func (a *app) pkgFlagSet(name string, f *pkgFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("pi "+name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // help and errors are printed by pkgParse
	fs.BoolVarP(&f.local, "local", "l", false, "the project's packages (.pi/extensions of the current directory) instead of yours")
	fs.StringVar(&f.cwd, "cwd", "", "project directory for --local (default: the current directory)")
	if name == "install" || name == "update" {
		fs.BoolVarP(&f.yes, "yes", "y", false, "grant what the packages ask for without asking")
	}
	return fs
}

// pkgScope is where packages of f go: the extensions folder and the
// project directory ("" for the user's).
func (a *app) pkgScope(f pkgFlags) (root, project string, err error) {
	if f.cwd != "" && !f.local {
		return "", "", usagef("--cwd only matters with --local")
	}
	return a.extRoot(f.local, f.cwd)
}

const installUsage = "pi install SOURCE... [-l] [-y]   (SOURCE: npm:NAME[@VERSION], git:HOST/OWNER/REPO[@REF], a URL, or ./DIR)\n       pi install [-l] [-y]             the packages the trusted project declares in .pi/settings.json"

// pkgParse parses a package command's flags: -h/--help prints usage and
// the flags (exit 0); a bad flag is a usage error that names the usage.
func (a *app) pkgParse(fs *pflag.FlagSet, args []string, usage string) error {
	err := fs.Parse(args)
	if err == nil {
		return nil
	}
	if errors.Is(err, pflag.ErrHelp) {
		return a.helpOr(err, usage, fs)
	}
	return usagef("%v (usage: %s)", err, strings.TrimSpace(strings.SplitN(usage, "\n", 2)[0]))
}

func (a *app) cmdInstall(ctx context.Context, args []string) error {
	var f pkgFlags
	fs := a.pkgFlagSet("install", &f)
	if err := a.pkgParse(fs, args, installUsage); err != nil {
		return err
	}
	sources := fs.Args()
	if len(sources) == 0 {
		return a.installDeclared(ctx, f)
	}
	root, project, err := a.pkgScope(f)
	if err != nil {
		return err
	}
	var failed []string
	for _, s := range sources {
		if err := a.installOne(ctx, s, a.wd, root, project, f.yes); err != nil {
			fmt.Fprintf(a.stderr, "pi: install %s: %v\n", esc(s), err)
			failed = append(failed, s)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d packages not installed", len(failed), len(sources))
	}
	return nil
}

// installDeclared installs the packages a trusted project lists under
// "packages" in .pi/settings.json, after the user says yes.
func (a *app) installDeclared(ctx context.Context, f pkgFlags) error {
	l, err := a.load(&common{cwd: f.cwd})
	if err != nil {
		return err
	}
	if !l.Trust.Trusted {
		return fmt.Errorf("%s is not trusted: its declared packages are installed only in a trusted project (pi trust, then pi install)", l.Cwd)
	}
	var specs []string
	var base string
	for _, v := range l.Values.Layers("packages") {
		if v.Scope != "project" {
			continue
		}
		base = filepath.Dir(filepath.Dir(v.File))
		var items []json.RawMessage
		if json.Unmarshal(v.Raw, &items) != nil {
			continue
		}
		for _, it := range items {
			var s string
			var obj struct{ Source string }
			if json.Unmarshal(it, &s) != nil && json.Unmarshal(it, &obj) == nil {
				s = obj.Source
			}
			if s != "" {
				specs = append(specs, s)
			}
		}
	}
	if len(specs) == 0 {
		return usagef("no package source given, and %s declares no packages\nusage: %s", filepath.Join(l.Cwd, ".pi", "settings.json"), installUsage)
	}
	fmt.Fprintf(a.stdout, "%s declares %d package(s):\n", l.Cwd, len(specs))
	for _, s := range specs {
		fmt.Fprintf(a.stdout, "  %s\n", esc(s))
	}
	if !f.yes {
		if !a.isTerminal {
			return fmt.Errorf("not installed: pass --yes to install them without a terminal to ask on")
		}
		fmt.Fprint(a.stderr, "fetch and install them into the project's .pi/extensions? [y/N] ")
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
			fmt.Fprintln(a.stdout, "nothing installed")
			return nil
		}
	}
	root := filepath.Join(resources.ProjectDir(l.Cwd), "extensions")
	var failed int
	for _, s := range specs {
		if err := a.installOne(ctx, s, base, root, l.Cwd, f.yes); err != nil {
			fmt.Fprintf(a.stderr, "pi: install %s: %v\n", esc(s), err)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d packages not installed", failed, len(specs))
	}
	return nil
}

// installOne fetches spec, installs its package into root and pins it.
func (a *app) installOne(ctx context.Context, spec, base, root, project string, yes bool) error {
	src, err := packages.Parse(spec, base, a.home)
	if err != nil {
		return usagef("%v", err)
	}
	if src.Kind != packages.Local && a.offline() {
		return fmt.Errorf("PI_OFFLINE is set, and %s would be fetched from the network; unset PI_OFFLINE to fetch it, or install a local copy (pi install ./DIR)", src.Spec)
	}
	if src.Kind == packages.Local {
		// The lock keeps where the package is, not how it was reached, so
		// that pi update finds it from any directory.
		src.Spec = src.Path
	}
	// The work directory is in the agent dir, so that a fetched package
	// moves into place without a copy.
	tmp := filepath.Join(a.agentDir(), "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	work, err := os.MkdirTemp(tmp, "install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	fetched, err := packages.Fetch(ctx, src, work)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(fetched.Dir, "extension.yaml")); errors.Is(err, fs.ErrNotExist) {
		if isPiPackage(fetched.Dir) {
			return a.installPiPackage(ctx, src, fetched, project)
		}
		return fmt.Errorf("%s is neither a pi extension package (extension.yaml at its top) nor a package of the established format (a package.json, or an extensions/, skills/, prompts/ or themes/ folder)", spec)
	}
	pkg, err := readPackage(fetched.Dir)
	if err != nil {
		return err
	}
	m := pkg.Manifest
	dest := filepath.Join(root, m.Name)
	lock, err := packages.ReadLock(a.agentDir())
	if err != nil {
		return err
	}
	if old, ok := lock.Find(m.Name, project); ok && old.Source != src.Spec {
		fmt.Fprintf(a.stdout, "%s was installed from %s; it now comes from %s\n", esc(m.Name), esc(old.Source), esc(src.Spec))
	} else if !ok {
		if _, err := os.Lstat(dest); err == nil {
			if same, _ := samePackage(pkg, dest); !same {
				return fmt.Errorf("%s already holds another extension named %s (installed with pi ext install?); pi ext remove %s first", dest, m.Name, m.Name)
			}
		}
	}
	same, err := samePackage(pkg, dest)
	if err != nil {
		return err
	}
	if !same {
		if err := installCopy(pkg, root, dest); err != nil {
			return err
		}
	}
	e := packages.Entry{Name: m.Name, Source: src.Spec, Kind: src.Kind, Version: m.Version, Commit: fetched.Commit, SHA256: pkg.SHA256,
		Dir: dest, Project: project, Installed: time.Now().UTC().Format(time.RFC3339)}
	if fetched.Version != "" {
		e.Version = fetched.Version
	}
	lock.Put(e)
	if err := lock.Save(); err != nil {
		return fmt.Errorf("record it in the lock: %w", err)
	}
	pin := ""
	if e.Commit != "" {
		pin = " at commit " + e.Commit[:min(12, len(e.Commit))]
	}
	verb := "installed"
	if same {
		verb = "already installed:"
	}
	fmt.Fprintf(a.stdout, "%s %s %s from %s%s\n  in %s, module sha256 %s (pinned in %s)\n", verb, esc(m.Name), esc(e.Version), esc(src.Spec), pin, esc(dest), pkg.SHA256, lock.Path())
	if project != "" {
		if trusted, _, _ := resources.StoredTrust(a.agentDir(), project); !trusted {
			fmt.Fprintf(a.stdout, "note: project extensions load only in trusted projects (pi trust %s)\n", shellWord(project))
		}
	}
	again := "pi install " + shellWord(src.Spec)
	if project != "" {
		again += " -l --cwd " + shellWord(project)
	}
	return a.grantOnInstall(pkg, yes, again+" --yes")
}

func (a *app) cmdRemove(ctx context.Context, args []string) error {
	var f pkgFlags
	fs := a.pkgFlagSet("remove", &f)
	const usage = "pi remove NAME|SOURCE... [-l]"
	if err := a.pkgParse(fs, args, usage); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("remove: name the package (usage: %s)", strings.TrimSpace(usage))
	}
	_, project, err := a.pkgScope(f)
	if err != nil {
		return err
	}
	lock, err := packages.ReadLock(a.agentDir())
	if err != nil {
		return err
	}
	store, err := host.OpenGrantStore(a.agentDir())
	if err != nil {
		return err
	}
	for _, want := range fs.Args() {
		var found *packages.Entry
		for _, e := range lock.Entries {
			if e.Project == project && (e.Name == want || e.Source == want) {
				e := e
				found = &e
			}
		}
		if found == nil {
			done, err := a.removeDeclared(want, project, lock)
			if err != nil {
				return err
			}
			if done {
				continue
			}
			return fmt.Errorf("no package %q is installed %s (pi list shows them)", want, scopeText(project))
		}
		if err := os.RemoveAll(found.Dir); err != nil {
			return err
		}
		lock.Remove(found.Name, project)
		store.Remove(found.Name)
		fmt.Fprintf(a.stdout, "removed %s (%s) from %s\n", esc(found.Name), esc(found.Source), esc(found.Dir))
	}
	if err := lock.Save(); err != nil {
		return err
	}
	return store.Save()
}

// offline reports whether PI_OFFLINE asks pi to stay off the network, as
// the established harness reads it ("1", "true" or "yes").
func (a *app) offline() bool {
	switch strings.ToLower(a.getenv("PI_OFFLINE")) {
	case "1", "true", "yes":
		return true
	}
	return false
}

func scopeText(project string) string {
	if project == "" {
		return "for you"
	}
	return "in " + project
}

func (a *app) cmdUpdate(ctx context.Context, args []string) error {
	var f pkgFlags
	fs := a.pkgFlagSet("update", &f)
	if err := a.pkgParse(fs, args, "pi update [NAME...] [-l] [-y]"); err != nil {
		return err
	}
	root, project, err := a.pkgScope(f)
	if err != nil {
		return err
	}
	lock, err := packages.ReadLock(a.agentDir())
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for _, n := range fs.Args() {
		names[n] = true
	}
	var todo []packages.Entry
	for _, e := range lock.Entries {
		if e.Project == project && (len(names) == 0 || names[e.Name]) {
			todo = append(todo, e)
			delete(names, e.Name)
		}
	}
	decl, err := a.declaredPackages(project, lock)
	if err != nil {
		return err
	}
	var todoDecl []declaredPkg
	for _, d := range decl {
		named := len(names) == 0
		for n := range names {
			if d.is(n, a.wd, a.home) {
				named = true
				delete(names, n)
			}
		}
		if named {
			todoDecl = append(todoDecl, d)
		}
	}
	for n := range names {
		return fmt.Errorf("no package %q is installed %s", n, scopeText(project))
	}
	if len(todo)+len(todoDecl) == 0 {
		fmt.Fprintf(a.stdout, "no packages installed %s\n", scopeText(project))
		return nil
	}
	var failed int
	for _, e := range todo {
		before := e.SHA256
		base := a.wd
		if err := a.installOne(ctx, e.Source, base, root, project, f.yes); err != nil {
			fmt.Fprintf(a.stderr, "pi: update %s: %v\n", esc(e.Name), err)
			failed++
			continue
		}
		if now, ok := mustFind(a.agentDir(), e.Name, project); ok && now.SHA256 != before {
			fmt.Fprintf(a.stdout, "%s changed: module %s → %s; its grant applies only once given again for the new module\n", esc(e.Name), host.ShortSHA(before), host.ShortSHA(now.SHA256))
		}
	}
	for _, d := range todoDecl {
		if d.Src.Kind == packages.Local {
			fmt.Fprintf(a.stdout, "%s loads from %s as it is there; nothing to fetch\n", esc(d.Name), esc(d.Dir))
			continue
		}
		if err := a.installOne(ctx, d.Source, filepath.Dir(d.File), root, project, f.yes); err != nil {
			fmt.Fprintf(a.stderr, "pi: update %s: %v\n", esc(d.Name), err)
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d packages not updated", failed, len(todo)+len(todoDecl))
	}
	return nil
}

func mustFind(agentDir, name, project string) (packages.Entry, bool) {
	l, err := packages.ReadLock(agentDir)
	if err != nil {
		return packages.Entry{}, false
	}
	return l.Find(name, project)
}

func (a *app) cmdList(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("pi list", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print the lock entries as JSON")
	if err := a.pkgParse(fs, args, "pi list [--json]"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("list: unexpected argument %q (usage: pi list [--json])", fs.Arg(0))
	}
	lock, err := packages.ReadLock(a.agentDir())
	if err != nil {
		return err
	}
	declared := a.listDeclared(lock)
	if *asJSON {
		b, _ := json.MarshalIndent(append(slices.Clone(lock.Entries), declared...), "", "  ")
		fmt.Fprintln(a.stdout, string(b))
		return nil
	}
	for _, e := range declared {
		state := "ok"
		if _, err := os.Stat(e.Dir); err != nil {
			state = "not installed (pi install " + e.Source + ")"
		}
		fmt.Fprintf(a.stdout, "%-20s %-22s %s  %s\n  source %s · %s\n", esc(e.Name), esc(e.Version), scopeText(e.Project), state, esc(e.Source), esc(e.Dir))
	}
	if len(lock.Entries) == 0 && len(declared) == 0 {
		fmt.Fprintln(a.stdout, "no packages installed (pi install SOURCE adds one; pi ext list shows every extension that loads)")
		return nil
	}
	for _, e := range lock.Entries {
		state := "ok"
		if p, _ := host.ReadPackage(e.Dir); p == nil {
			state = "missing from " + e.Dir
		} else if p.SHA256 != e.SHA256 {
			state = "CHANGED on disk since it was installed (sha256 " + host.ShortSHA(p.SHA256) + "): grants do not apply to it; pi update or pi install again"
		}
		pin := e.Version
		if e.Commit != "" {
			pin += " @" + e.Commit[:min(12, len(e.Commit))]
		}
		fmt.Fprintf(a.stdout, "%-20s %-22s %s  %s\n  source %s · sha256 %s · %s\n", esc(e.Name), esc(pin), scopeText(e.Project), state, esc(e.Source), host.ShortSHA(e.SHA256), esc(e.Dir))
	}
	return nil
}
