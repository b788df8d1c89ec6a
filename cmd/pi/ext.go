package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/host"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

const extUsage = `Usage: pi ext SUBCOMMAND [flags]

Write, check and manage WebAssembly extensions.

  init NAME [--dir DIR]                 scaffold a new extension package (default ./NAME)
  build DIR                             compile DIR's Go source into its .wasm module
  inspect DIR [--json]                  manifest, exports, size, SHA-256, compile time, grant
  test DIR --hook H --event FILE        call one hook with a JSON event (FILE "-" is stdin)
  list [flags] [--json]                 the extensions pi prompt would load here
  install PATH [--project] [--yes]      copy a built package into the agent dir (or project)
  remove NAME [--project]               delete an installed package and its stored grant

Run "pi ext SUBCOMMAND --help" for the flags of a subcommand.
`

func (a *app) cmdExt(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(a.stdout, extUsage)
		return nil
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "init":
		return a.cmdExtInit(rest)
	case "build":
		return a.cmdExtBuild(ctx, rest)
	case "inspect":
		return a.cmdExtInspect(ctx, rest)
	case "test":
		return a.cmdExtTest(ctx, rest)
	case "list", "ls":
		return a.cmdExtList(ctx, rest)
	case "install":
		return a.cmdExtInstall(rest)
	case "remove", "rm", "uninstall":
		return a.cmdExtRemove(rest)
	case "help", "-h", "--help":
		fmt.Fprint(a.stdout, extUsage)
		return nil
	}
	if strings.HasPrefix(sub, "-") {
		return usagef("ext: unknown flag %s before the subcommand (see pi ext --help)", sub)
	}
	return usagef("ext: unknown subcommand %q (want init, build, inspect, test, list, install or remove)", sub)
}

// newExtFlags returns a flag set for an ext subcommand, quiet on errors.
func newExtFlags(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet("ext "+name, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	return fs
}

// parseExt parses an ext subcommand's flags; want is the number of
// positional arguments it takes, described by what (for the error).
func (a *app) parseExt(fs *pflag.FlagSet, args []string, usage string, want int, what string) ([]string, error) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, a.helpOr(err, usage, fs)
		}
		return nil, usagef("%s: %v", fs.Name(), err)
	}
	rest := fs.Args()
	switch {
	case len(rest) < want:
		return nil, usagef("%s: missing %s", fs.Name(), what)
	case len(rest) > want:
		return nil, usagef("%s: unexpected argument %q", fs.Name(), rest[want])
	}
	return rest, nil
}

// absFrom resolves p against the app's working directory.
func (a *app) absFrom(p string) string {
	p = resources.ExpandHome(p, a.home)
	if !filepath.IsAbs(p) {
		p = filepath.Join(a.wd, p)
	}
	return filepath.Clean(p)
}

// readManifest reads and validates DIR/extension.yaml without needing the
// module (host.ReadPackage insists on both).
func readManifest(dir string) (abi.Manifest, error) {
	var m abi.Manifest
	path := filepath.Join(dir, abi.ManifestFile)
	raw, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("%s: %v", path, err)
	}
	if errs := m.Validate(); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return m, fmt.Errorf("%s: %s", path, strings.Join(msgs, "; "))
	}
	return m, nil
}

// readPackage is host.ReadPackage with its diagnostics folded into one
// error; a missing module gets a hint to build it.
func readPackage(dir string) (*host.Package, error) {
	p, ds := host.ReadPackage(dir)
	if p != nil {
		return p, nil
	}
	var msgs []string
	for _, d := range ds {
		msg := d.String()
		if d.Kind == host.DiagModule && os.IsNotExist(statErr(d.Path)) {
			msg = fmt.Sprintf("%s: module not built yet; run: pi ext build %s", d.Path, dir)
		}
		msgs = append(msgs, msg)
	}
	if len(msgs) == 0 {
		msgs = []string{dir + ": not an extension package"}
	}
	return nil, fmt.Errorf("%s", strings.Join(msgs, "\n"))
}

func statErr(p string) error { _, err := os.Stat(p); return err }

// capsList describes capabilities as short items ("file .git/HEAD").
func capsList(c abi.Capabilities) []string {
	var out []string
	for _, f := range c.Files {
		out = append(out, "file "+f)
	}
	for _, h := range c.Network {
		out = append(out, "network "+h)
	}
	for _, e := range c.Env {
		out = append(out, "env "+e)
	}
	if c.Clock {
		out = append(out, "clock")
	}
	if c.Random {
		out = append(out, "random")
	}
	return out
}

func capsText(c abi.Capabilities) string {
	if l := capsList(c); len(l) > 0 {
		return strings.Join(l, ", ")
	}
	return "nothing"
}

// grantState is what a stored (or per-run) grant gives one module.
type grantState struct {
	// Stored reports whether a grant is recorded for the extension's name.
	Stored bool `json:"stored"`
	// SHA256 is the module the grant is pinned to ("" = any module).
	SHA256 string `json:"sha256,omitempty"`
	// Matches reports whether the grant applies to this module.
	Matches bool `json:"matches"`
	// Granted and Missing split what the manifest requests.
	Granted abi.Capabilities `json:"granted"`
	Missing abi.Capabilities `json:"missing"`
}

// grantFor works out what g grants a module with the given SHA-256 that
// requests req. It mirrors the host's rule: a grant pinned to another
// module grants nothing, and each item is granted only when listed as
// requested.
func grantFor(req abi.Capabilities, g host.Grant, ok bool, sha string) grantState {
	st := grantState{Stored: ok, SHA256: g.SHA256, Missing: req}
	if !ok || (g.SHA256 != "" && g.SHA256 != sha) {
		return st
	}
	st.Matches = true
	split := func(want, have []string) (in, out []string) {
		for _, w := range want {
			if slices.Contains(have, w) {
				in = append(in, w)
			} else {
				out = append(out, w)
			}
		}
		return
	}
	st.Granted.Files, st.Missing.Files = split(req.Files, g.Files)
	st.Granted.Network, st.Missing.Network = split(req.Network, g.Network)
	st.Granted.Env, st.Missing.Env = split(req.Env, g.Env)
	st.Granted.Clock, st.Missing.Clock = req.Clock && g.Clock, req.Clock && !g.Clock
	st.Granted.Random, st.Missing.Random = req.Random && g.Random, req.Random && !g.Random
	return st
}

// describe says in words what a grant state means.
func (g grantState) describe() string {
	switch {
	case !g.Stored:
		return "none stored"
	case !g.Matches:
		return fmt.Sprintf("stale: stored for module sha256 %s, which is not this one; it grants nothing", shortSHA(g.SHA256))
	case g.Missing.Empty():
		return "stored, matches this module: " + capsText(g.Granted)
	default:
		return fmt.Sprintf("stored, matches this module: %s (still missing: %s)", capsText(g.Granted), capsText(g.Missing))
	}
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// ms expresses d in milliseconds with microsecond precision.
func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%.2fs", d.Seconds())
}

func fmtSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func commandNames(cs []abi.CommandInfo) string {
	if len(cs) == 0 {
		return "-"
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = "/" + c.Name
	}
	return strings.Join(names, " ")
}

// validExtName checks name with the manifest's name rule.
func validExtName(name string) error {
	m := abi.Manifest{Name: name, ABI: abi.Version}
	for _, e := range m.Validate() {
		if fe, ok := e.(*abi.FieldError); ok && fe.Field == "name" {
			return fmt.Errorf("extension name %s", fe.Message)
		}
	}
	return nil
}
