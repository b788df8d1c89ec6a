package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The scaffold written by `pi ext init`. NAME is replaced by the extension's
// name.
const scaffoldManifest = `# NAME: adds one section to the system prompt.
# In this directory:
#   pi ext build .      compiles main.go into NAME.wasm (GOOS=wasip1 GOARCH=wasm
#                       go build -buildmode=c-shared)
#   go test .           builds the module, loads it like pi does and checks the hook
#   pi ext test . --hook before_agent_start --event event.json
#   pi ext install .    copies the package into your agent dir
name: NAME
version: 0.1.0
abi: 1
hooks: [before_agent_start]

# An extension gets nothing it does not ask for here and the user does not
# grant. Uncomment what this one needs.
# capabilities:
#   files: [".git/HEAD", "docs/**/*.md"]   # globs relative to the project root
#   network: [api.example.com]           # hosts for HTTP requests
#   env: [USER]                          # environment variables
#   clock: true                          # the real time (otherwise a fixed clock)
#   random: true                         # real randomness (otherwise deterministic)

# Per-call limits; the values shown are the defaults.
# limits:
#   timeoutMs: 100
#   memoryMiB: 64
#   outputKiB: 1024

# What happens when a call fails: skip (go on without this extension's
# edit, with a diagnostic) or abort (stop the run; for policy extensions).
# failure: skip

# Free-form settings, read in the guest with sdk.Config.
# config:
#   greeting: hello
`

const scaffoldMain = `//go:build wasip1

// NAME adds a short section to the system prompt before each run.
package main

import (
	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func init() {
	sdk.OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
		// Order places the section: rules are at 200, docs 300, skills 600,
		// cwd 700 (see docs/extensions.md).
		r.SetSection("NAME", "Hello from the NAME extension.", sdk.Order(650))
		return nil
	})
}

func main() {}
`

const scaffoldTest = `//go:build !wasip1

package main

// This test runs on the host (go test . in this directory): it builds the module with the
// standard toolchain, loads it the way pi does and calls its hook.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/host"
)

func TestBeforeAgentStart(t *testing.T) {
	pkg := t.TempDir()
	manifest, err := os.ReadFile(abi.ManifestFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(pkg, abi.ManifestFile), manifest, 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(pkg, "NAME.wasm"), ".")
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}

	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close(ctx)
	exts, diags := rt.Load(ctx, []string{pkg}, nil)
	if len(exts) != 1 {
		t.Fatalf("load: %v", diags)
	}
	res, err := exts[0].BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "hi"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ops) != 1 || res.Ops[0].Op != abi.OpSetSection || res.Ops[0].Name != "NAME" {
		t.Fatalf("ops: %+v", res.Ops)
	}
}
`

const scaffoldEvent = `{
  "input": "What does this project do?",
  "options": {
    "tools": ["read", "bash", "edit", "write"],
    "cwd": "/tmp/project",
    "sections": [
      {"name": "preamble", "order": 0, "source": "builtin", "bytes": 120},
      {"name": "rules", "order": 200, "source": "builtin", "bytes": 300}
    ]
  }
}
`

func (a *app) cmdExtInit(args []string) error {
	flags := newExtFlags("init")
	dirFlag := flags.String("dir", "", "directory to create the package in (default ./NAME)")
	rest, err := a.parseExt(flags, args, "pi ext init NAME [--dir DIR]", 1, "the extension NAME")
	if err != nil {
		return err
	}
	name := rest[0]
	if err := validExtName(name); err != nil {
		return usagef("ext init: %v", err)
	}
	dir := *dirFlag
	if dir == "" {
		dir = name
	}
	dir = a.absFrom(dir)
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	files := []struct{ name, text string }{
		{"extension.yaml", scaffoldManifest},
		{"main.go", scaffoldMain},
		{"main_test.go", scaffoldTest},
		{"event.json", scaffoldEvent},
	}
	var clash []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if _, err := os.Lstat(p); err == nil {
			clash = append(clash, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if len(clash) > 0 {
		return fmt.Errorf("refusing to overwrite %s", strings.Join(clash, ", "))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	rel := a.relToWd(dir)
	for _, f := range files {
		text := strings.ReplaceAll(f.text, "NAME", name)
		p := filepath.Join(dir, f.name)
		// O_EXCL: never clobber a file that appeared since the check.
		fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, werr := fh.WriteString(text)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
		fmt.Fprintf(a.stdout, "created %s\n", p)
	}
	fmt.Fprintf(a.stdout, "\nNext:\n  pi ext build %s\n  pi ext test %s --hook before_agent_start --event %s\n  pi ext install %s\n",
		rel, rel, filepath.Join(rel, "event.json"), rel)
	if mod := findGoMod(dir); mod == "" {
		fmt.Fprintf(a.stdout, "\n%s is not inside a Go module. Give it one that requires pi:\n  cd %s && go mod init example.com/%s && go get github.com/piwasm/pi && go mod tidy\n",
			dir, rel, name)
	}
	return nil
}

// relToWd returns p relative to the working directory when it lies below
// it (for copy-pasteable hints), else p.
func (a *app) relToWd(p string) string {
	if r, err := filepath.Rel(a.wd, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		if r == "." {
			return "."
		}
		return "." + string(filepath.Separator) + r
	}
	return p
}

// findGoMod returns the go.mod governing dir, or "".
func findGoMod(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "go.mod")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
