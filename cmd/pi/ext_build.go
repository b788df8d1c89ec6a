package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// buildResult is what `pi ext build` reports.
type buildResult struct {
	Module string  `json:"module"`
	Size   int     `json:"size"`
	SHA256 string  `json:"sha256"`
	Ms     float64 `json:"buildMs"`
}

func (a *app) cmdExtBuild(ctx context.Context, args []string) error {
	flags := newExtFlags("build")
	asJSON := flags.Bool("json", false, "print the result as JSON")
	dir, err := a.parseExtDir(flags, args, "pi ext build [DIR] [--json]\n\n"+
		"Builds the package in DIR (default: the current directory) into the module\n"+
		"its extension.yaml names (default NAME.wasm), next to the manifest.\n\n"+
		"Go: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -buildvcs=false, run in\n"+
		"DIR (without version-control stamping, so a commit that does not change the code\n"+
		"does not change the module, its pin or its grant). DIR must be\n"+
		"inside a Go module that can import github.com/piwasm/pi/sdk-guest: one made by\n"+
		"pi ext init (its go.mod points at the SDK copy in pi-sdk/), or this repository.\n\n"+
		"AssemblyScript (DIR has a package.json): npm ci when node_modules is missing or\n"+
		"older than package-lock.json, then npm run build (asc).")
	if err != nil {
		return err
	}
	res, err := a.buildExt(ctx, dir)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, res)
	}
	fmt.Fprintf(a.stdout, "%s\n  size    %s (%d bytes)\n  sha256  %s\n  built in %s\n", res.Module, fmtSize(res.Size), res.Size, res.SHA256, fmtDur(time.Duration(res.Ms*float64(time.Millisecond))))
	return nil
}

// buildExt compiles the Go package in dir into dir/<module>. The go command
// runs in dir, so the Go module enclosing dir decides how
// github.com/piwasm/pi resolves.
func (a *app) buildExt(ctx context.Context, dir string) (*buildResult, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
		return a.buildExtNPM(ctx, dir, m.ModuleFile())
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("building needs the Go toolchain on PATH: %w", err)
	}
	if findGoMod(dir) == "" {
		return nil, errLines(fmt.Sprintf("%s is not inside a Go module.", dir),
			"  pi ext init NAME makes a package that is one, with the SDK in NAME/pi-sdk.")
	}
	out := filepath.Join(dir, m.ModuleFile())
	// -buildvcs=false: Go would otherwise stamp the module with the
	// repository's revision and dirty flag, so every commit (or an edit
	// to any file of the repository) would change the module's bytes,
	// hence its SHA-256 pin, and the user would have to grant it again
	// although its code is the same. It also keeps a build working under
	// a directory whose .git is not a repository git can read.
	cmd := exec.CommandContext(ctx, goBin, "build", "-buildmode=c-shared", "-buildvcs=false", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	cmd.Stdout = a.stderr
	cmd.Stderr = a.stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -buildvcs=false -o %s . (in %s): %v", out, dir, err)
	}
	took := time.Since(start)
	wasm, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(wasm)
	return &buildResult{Module: out, Size: len(wasm), SHA256: hex.EncodeToString(sum[:]), Ms: ms(took)}, nil
}

// buildExtNPM builds an AssemblyScript (or other npm-built) package: npm ci
// when its dependencies are missing or older than the lock file, then its
// build script, which must write module into dir.
func (a *app) buildExtNPM(ctx context.Context, dir, module string) (*buildResult, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return nil, fmt.Errorf("building %s needs npm on PATH: %w", dir, err)
	}
	run := func(args ...string) error {
		cmd := exec.CommandContext(ctx, npm, args...)
		cmd.Dir = dir
		cmd.Stdout = a.stderr
		cmd.Stderr = a.stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("npm %s (in %s): %v", strings.Join(args, " "), dir, err)
		}
		return nil
	}
	start := time.Now()
	lock, lerr := os.Stat(filepath.Join(dir, "package-lock.json"))
	installed, ierr := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if lerr == nil && (ierr != nil || lock.ModTime().After(installed.ModTime())) {
		if err := run("ci", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
			return nil, err
		}
	} else if lerr != nil {
		return nil, fmt.Errorf("%s has no package-lock.json: pin the dependencies (npm install) so that builds are reproducible", dir)
	}
	out := filepath.Join(dir, module)
	_ = os.Remove(out) // a stale module must not pass for a fresh one
	if err := run("run", "--silent", "build"); err != nil {
		return nil, err
	}
	took := time.Since(start)
	wasm, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("npm run build did not write %s: %w", out, err)
	}
	sum := sha256.Sum256(wasm)
	return &buildResult{Module: out, Size: len(wasm), SHA256: hex.EncodeToString(sum[:]), Ms: ms(took)}, nil
}
