package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	rest, err := a.parseExt(flags, args, "pi ext build DIR [--json]\n\n"+
		"Runs GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared in DIR and writes the\n"+
		"module named by DIR/extension.yaml (default NAME.wasm) next to it. DIR must be\n"+
		"inside a Go module that can import github.com/piwasm/pi/sdk-guest: this\n"+
		"repository, or a module of your own whose go.mod requires github.com/piwasm/pi\n"+
		"(go mod init example.com/NAME && go get github.com/piwasm/pi).", 1, "the package DIR")
	if err != nil {
		return err
	}
	res, err := a.buildExt(ctx, a.absFrom(rest[0]))
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
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("building needs the Go toolchain on PATH: %w", err)
	}
	if findGoMod(dir) == "" {
		return nil, errLines(fmt.Sprintf("%s is not inside a Go module; create one that requires pi:", dir),
			fmt.Sprintf("  cd %s && go mod init example.com/%s && go get github.com/piwasm/pi && go mod tidy", dir, m.Name))
	}
	out := filepath.Join(dir, m.ModuleFile())
	cmd := exec.CommandContext(ctx, goBin, "build", "-buildmode=c-shared", "-o", out, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	cmd.Stdout = a.stderr
	cmd.Stderr = a.stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o %s . (in %s): %v", out, dir, err)
	}
	took := time.Since(start)
	wasm, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(wasm)
	return &buildResult{Module: out, Size: len(wasm), SHA256: hex.EncodeToString(sum[:]), Ms: ms(took)}, nil
}
