package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/host"
	"github.com/spf13/pflag"
)

const extUsage = `Usage: pi ext SUBCOMMAND [flags]

Write, check and manage WebAssembly extensions.

  init NAME [--dir DIR] [--lang L]      scaffold a new extension package (default ./NAME; L go or assemblyscript)
  build [DIR]                           compile DIR's source (Go or AssemblyScript) into its .wasm module
  inspect DIR [--json]                  manifest, exports, size, SHA-256, compile time, grant
  test [DIR] [--hook H] [--event FILE]  call a hook with a JSON event (default: the only hook, DIR/event.json)
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

// parseExtDir parses an ext subcommand that takes an optional package
// DIR (default: the working directory).
func (a *app) parseExtDir(fs *pflag.FlagSet, args []string, usage string) (string, error) {
	n := 0
	probe := newExtFlags(fs.Name())
	probe.AddFlagSet(fs)
	if probe.Parse(args) == nil && probe.NArg() > 0 {
		n = 1
	}
	rest, err := a.parseExt(fs, args, usage, n, "the package DIR")
	if err != nil {
		return "", err
	}
	if n == 0 {
		return a.wd, nil
	}
	return a.absFrom(rest[0]), nil
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
// module (host.ReadPackage insists on both), folding problems into one error.
func readManifest(dir string) (abi.Manifest, error) {
	m, ds := host.ReadManifest(dir)
	if m != nil {
		return *m, nil
	}
	msgs := make([]string, len(ds))
	for i, d := range ds {
		msgs[i] = d.Path + ": " + d.Message
	}
	return abi.Manifest{}, errors.New(strings.Join(msgs, "; "))
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
			msg = missingModule(dir, d.Path)
		}
		msgs = append(msgs, msg)
	}
	if len(msgs) == 0 {
		msgs = []string{dir + ": not an extension package"}
	}
	return nil, errLines(msgs...)
}

// missingModule explains a module file that is not there: an extension not
// built yet, or a manifest naming a file other than the one that was built.
func missingModule(dir, path string) string {
	others, _ := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if len(others) == 0 {
		return fmt.Sprintf("%s: module not built yet; run: pi ext build %s", path, dir)
	}
	names := make([]string, len(others))
	for i, o := range others {
		names[i] = filepath.Base(o)
	}
	return fmt.Sprintf("%s: no such module file, but the directory holds %s; the module file is module: in %s, or NAME.wasm without it",
		path, strings.Join(names, ", "), abi.ManifestFile)
}

func statErr(p string) error { _, err := os.Stat(p); return err }

// capsList describes capabilities as short items ("file .git/HEAD").
func capsList(c abi.Capabilities) []string { return c.Items() }

func capsText(c abi.Capabilities) string {
	if l := capsList(c); len(l) > 0 {
		return strings.Join(escAll(l), ", ")
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
// requests req, by the runtime's own rule.
func grantFor(req abi.Capabilities, g host.Grant, ok bool, sha string) grantState {
	granted, missing, stale := host.EffectiveGrant(req, g, ok, sha)
	return grantState{Stored: ok, SHA256: g.SHA256, Matches: ok && !stale, Granted: granted, Missing: missing}
}

// describe says in words what a grant state means.
func (g grantState) describe() string {
	switch {
	case !g.Stored:
		return "none stored"
	case !g.Matches:
		return fmt.Sprintf("stale: stored for module sha256 %s, which is not this one; it grants nothing", host.ShortSHA(g.SHA256))
	case g.Missing.Empty():
		return "stored, matches this module: " + capsText(g.Granted)
	default:
		return fmt.Sprintf("stored, matches this module: %s (still missing: %s)", capsText(g.Granted), capsText(g.Missing))
	}
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
		names[i] = "/" + esc(c.Name)
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
