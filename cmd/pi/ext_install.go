package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/host"
)

// extRoot is where installed packages live: <agentDir>/extensions, or
// <cwd>/.pi/extensions with --project.
func (a *app) extRoot(project bool, cwd string) (string, string, error) {
	if !project {
		if cwd != "" {
			return "", "", usagef("--cwd only matters with --project")
		}
		return filepath.Join(a.agentDir(), "extensions"), "", nil
	}
	c := common{cwd: cwd}
	dir, err := a.resolveCwd(&c)
	if err != nil {
		return "", "", err
	}
	return filepath.Join(resources.ProjectDir(dir), "extensions"), dir, nil
}

func (a *app) cmdExtInstall(args []string) error {
	flags := newExtFlags("install")
	project := flags.Bool("project", false, "install into the project's .pi/extensions instead of the agent dir")
	cwd := flags.String("cwd", "", "project directory for --project (default: the current directory)")
	yes := flags.BoolP("yes", "y", false, "grant everything the extension requests without asking")
	force := flags.Bool("force", false, "replace an installed extension of the same name")
	rest, err := a.parseExt(flags, args, "pi ext install PATH [--project] [--yes] [--force] [--cwd DIR]", 1, "the package PATH")
	if err != nil {
		return err
	}
	root, projDir, err := a.extRoot(*project, *cwd)
	if err != nil {
		return err
	}
	pkg, err := readPackage(a.absFrom(rest[0]))
	if err != nil {
		return err
	}
	m := pkg.Manifest
	dest := filepath.Join(root, m.Name)
	same, err := samePackage(pkg, dest)
	if err != nil {
		return err
	}
	switch {
	case same:
		fmt.Fprintf(a.stdout, "%s %s is already installed in %s (same module)\n", esc(m.Name), esc(m.Version), esc(dest))
	default:
		if _, err := os.Lstat(dest); err == nil && !*force {
			return fmt.Errorf("%s is already installed in %s with a different package; pass --force to replace it", m.Name, dest)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := installCopy(pkg, root, dest); err != nil {
			return fmt.Errorf("install %s: %w", m.Name, err)
		}
		fmt.Fprintf(a.stdout, "installed %s %s in %s\n  module %s, sha256 %s\n", esc(m.Name), esc(m.Version), esc(dest), fmtSize(pkg.Size), pkg.SHA256)
	}
	if *project {
		if trusted, _, _ := resources.StoredTrust(a.agentDir(), projDir); !trusted {
			fmt.Fprintf(a.stdout, "note: project extensions load only in trusted projects; run `pi trust %s` once, or pass --approve (-a) on each run\n", shellWord(projDir))
		}
	}
	again := "pi ext install " + shellWord(pkg.Dir) + " --force"
	if *project {
		again += " --project --cwd " + shellWord(projDir)
	}
	return a.grantOnInstall(pkg, *yes, again+" --yes")
}

// grantOnInstall shows what the package asks for and records the grant the
// user gives: asked once on a terminal, given by --yes, otherwise nothing
// new.
//
// storeCmd is the command that stores the grant later (the install again,
// with --yes), written so that it works from any directory.
func (a *app) grantOnInstall(pkg *host.Package, yes bool, storeCmd string) error {
	m := pkg.Manifest
	req := m.Capabilities
	if req.Empty() {
		fmt.Fprintln(a.stdout, "it asks for no capabilities: no files, network, environment, clock or randomness")
		return nil
	}
	fmt.Fprintln(a.stdout, "it asks for:")
	for _, f := range req.Files {
		fmt.Fprintf(a.stdout, "  read files  %s (under the project root)\n", esc(f))
	}
	for _, h := range req.Network {
		fmt.Fprintf(a.stdout, "  network     %s\n", esc(h))
	}
	for _, e := range req.Env {
		fmt.Fprintf(a.stdout, "  env         %s\n", esc(e))
	}
	if req.Clock {
		fmt.Fprintln(a.stdout, "  clock       the real time (otherwise a fixed clock)")
	}
	if req.Random {
		fmt.Fprintln(a.stdout, "  random      real randomness (otherwise deterministic)")
	}
	store, err := host.OpenGrantStore(a.agentDir())
	if err != nil {
		return fmt.Errorf("read stored grants: %w", err)
	}
	if g, ok := store.Get(m.Name); ok {
		if st := grantFor(req, g, ok, pkg.SHA256); st.Matches && st.Missing.Empty() {
			fmt.Fprintln(a.stdout, "already granted for this module")
			return nil
		}
	}
	grant := yes
	if !yes && a.isTerminal {
		fmt.Fprintf(a.stderr, "grant %s all of this? [y/N] ", esc(m.Name))
		line, _ := bufio.NewReader(a.stdin).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			grant = true
		}
	}
	if !grant {
		how := "not granted"
		if !a.isTerminal {
			how = "not granted (no terminal to ask on)"
		}
		fmt.Fprintf(a.stdout, "%s; the extension runs without them. To grant them later, either\n  pass --grant %s to pi (prompt, expand, -p) for one run, or\n  run %s to store the grant\n",
			how, m.Name, storeCmd)
		return nil
	}
	store.Set(m.Name, host.GrantAll(m, pkg.SHA256))
	if err := store.Save(); err != nil {
		return fmt.Errorf("record the grant: %w", err)
	}
	fmt.Fprintf(a.stdout, "granted %s, pinned to sha256 %s (recorded in %s)\n", capsText(req), host.ShortSHA(pkg.SHA256), store.Path())
	return nil
}

// samePackage reports whether dest already holds exactly pkg (manifest
// and module).
func samePackage(pkg *host.Package, dest string) (bool, error) {
	if filepath.Clean(pkg.Dir) == filepath.Clean(dest) {
		return true, nil
	}
	got, _ := host.ReadPackage(dest)
	if got == nil {
		return false, nil
	}
	if got.SHA256 != pkg.SHA256 || got.Manifest.ModuleFile() != pkg.Manifest.ModuleFile() {
		return false, nil
	}
	a, err := os.ReadFile(pkg.ManifestPath)
	if err != nil {
		return false, err
	}
	b, err := os.ReadFile(got.ManifestPath)
	if err != nil {
		return false, nil
	}
	return bytes.Equal(a, b), nil
}

// installCopy copies the manifest and module of pkg into a hidden staging
// directory under root (discovery skips dot-directories) and then moves it
// into place, replacing dest.
func installCopy(pkg *host.Package, root, dest string) error {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return err
	}
	stage, err := os.MkdirTemp(root, "."+pkg.Manifest.Name+"-install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	if err := os.Chmod(stage, 0o755); err != nil {
		return err
	}
	for _, f := range []string{pkg.ManifestPath, pkg.ModulePath} {
		b, mode, err := installSource(f, f == pkg.ModulePath)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(stage, filepath.Base(f)), b, mode); err != nil {
			return err
		}
		// WriteFile's mode passes through the umask; set it exactly.
		if err := os.Chmod(filepath.Join(stage, filepath.Base(f)), mode); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(dest); err != nil {
		return err
	}
	return os.Rename(stage, dest)
}

func (a *app) cmdExtRemove(args []string) error {
	flags := newExtFlags("remove")
	project := flags.Bool("project", false, "remove from the project's .pi/extensions instead of the agent dir")
	cwd := flags.String("cwd", "", "project directory for --project (default: the current directory)")
	rest, err := a.parseExt(flags, args, "pi ext remove NAME [--project] [--cwd DIR]", 1, "the extension NAME")
	if err != nil {
		return err
	}
	name := rest[0]
	if err := validExtName(name); err != nil {
		return usagef("ext remove: %v", err)
	}
	root, _, err := a.extRoot(*project, *cwd)
	if err != nil {
		return err
	}
	dir := filepath.Join(root, name)
	_, statErr := os.Lstat(dir)
	installed := statErr == nil
	if statErr != nil && !errors.Is(statErr, fs.ErrNotExist) {
		return statErr
	}
	store, err := host.OpenGrantStore(a.agentDir())
	if err != nil {
		return fmt.Errorf("read stored grants: %w", err)
	}
	_, granted := store.Get(name)
	if !installed && !granted {
		return fmt.Errorf("no extension named %q is installed in %s", name, root)
	}
	if installed {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "removed %s\n", dir)
	} else {
		fmt.Fprintf(a.stdout, "%s was not installed in %s\n", name, root)
	}
	if granted {
		store.Remove(name)
		if err := store.Save(); err != nil {
			return fmt.Errorf("forget the grant: %w", err)
		}
		fmt.Fprintf(a.stdout, "forgot the stored grant of %s\n", name)
	}
	return nil
}

// installSource reads a file of a package being installed. It must be a
// regular file in the package, not a symbolic link (which could point at
// anything the user can read, and change after the check); a module must
// be WebAssembly. The copy keeps the file's permissions, never wider than
// 0644: a private 0600 file stays private.
func installSource(path string, module bool) ([]byte, os.FileMode, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, 0, err
	}
	if st.Mode()&os.ModeSymlink != 0 {
		return nil, 0, fmt.Errorf("%s is a symbolic link; install copies only regular files (copy the file itself into the package)", path)
	}
	max := int64(host.MaxManifestBytes)
	if module {
		max = host.MaxModuleBytes
	}
	b, err := host.ReadRegularFile(path, max)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	if module && !bytes.HasPrefix(b, []byte("\x00asm")) {
		return nil, 0, fmt.Errorf("%s is not a WebAssembly module (it does not start with \\0asm)", path)
	}
	return b, st.Mode().Perm() & 0o644, nil
}
