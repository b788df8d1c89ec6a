package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/host"
	"github.com/spf13/pflag"
)

// extFlag is a flag an extension's manifest declares, as the command line
// takes it.
type extFlag struct {
	ext      string // the extension's name
	manifest string // its extension.yaml, for diagnostics
	spec     abi.FlagSpec
	cli      string // the flag's command-line name, without "--"
}

// unknownLongFlag reports whether args hold a --name fs (the main mode's
// flags) does not define: only then are extension manifests read before
// parsing, so that a run without extension flags costs nothing more (not
// even a second flag set, ~50 KB of allocations with a 4 KB CSV writer
// for each array flag's default).
func unknownLongFlag(fs *pflag.FlagSet, args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		name, ok := strings.CutPrefix(a, "--")
		if !ok || name == "" {
			continue
		}
		name, _, _ = strings.Cut(name, "=")
		if name != "help" && fs.Lookup(name) == nil {
			return true
		}
	}
	return false
}

// preParse reads the flags that decide where extensions come from (--cwd,
// -e, --no-extensions, --approve, …) ignoring every flag it does not know,
// as a first pass before the extensions' own flags are known.
func preParse(args []string) *common {
	fs := pflag.NewFlagSet("pi", pflag.ContinueOnError)
	var c common
	c.register(fs)
	var r runFlags
	r.register(fs)
	r.sandbox.register(fs)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	_ = fs.Parse(args)
	return &c
}

// extensionFlags reads the manifests of the extensions c would load (no
// module is read or run) and returns their flags.
func (a *app) extensionFlags(c *common) ([]extFlag, []diag.Diagnostic) {
	l, err := a.load(c)
	if err != nil {
		return nil, nil // the run reports it
	}
	var ms []manifestAt
	for _, dir := range a.extensionDirs(c, l) {
		if m, _ := host.ReadManifest(dir); m != nil && len(m.Validate()) == 0 {
			ms = append(ms, manifestAt{m: *m, dir: dir})
		}
	}
	return collectExtFlags(ms)
}

// manifestAt is a manifest and its package directory.
type manifestAt struct {
	m   abi.Manifest
	dir string
}

// collectExtFlags gathers the flags of the manifests in load order. A flag
// whose command-line name is one of pi's own, or another extension's, is
// left out with a diagnostic naming the manifest: pi's flag (or the first
// extension's) keeps its meaning. Of two extensions with one name the
// first is loaded, so only its flags count.
func collectExtFlags(ms []manifestAt) ([]extFlag, []diag.Diagnostic) {
	builtin := mainFlags()
	var out []extFlag
	var diags []diag.Diagnostic
	taken := map[string]string{} // cli name → extension
	seenExt := map[string]bool{}
	for _, ma := range ms {
		m := ma.m
		if len(m.Flags) == 0 || seenExt[m.Name] {
			continue
		}
		seenExt[m.Name] = true
		path := filepath.Join(ma.dir, abi.ManifestFile)
		for _, f := range m.Flags {
			cli := abi.FlagCLIName(m.Name, f.Name)
			if builtin.Lookup(cli) != nil || cli == "help" {
				diags = append(diags, diag.Diagnostic{Kind: "flag", Path: path, Extension: m.Name,
					Message: fmt.Sprintf("flag %q would be --%s, one of pi's own flags; pi's flag keeps its meaning and this one is not available (rename it)", f.Name, cli)})
				continue
			}
			if other, ok := taken[cli]; ok {
				diags = append(diags, diag.Diagnostic{Kind: "flag", Path: path, Extension: m.Name,
					Message: fmt.Sprintf("flag %q would be --%s, which extension %s already takes; it is not available", f.Name, cli, other)})
				continue
			}
			taken[cli] = m.Name
			out = append(out, extFlag{ext: m.Name, manifest: path, spec: f, cli: cli})
		}
	}
	return out, diags
}

// registerExtFlags adds the extensions' flags to fs.
func registerExtFlags(fs *pflag.FlagSet, flags []extFlag) {
	for _, f := range flags {
		desc := f.spec.Description
		if desc == "" {
			desc = "(extension " + f.ext + ")"
		}
		if f.spec.Type == abi.FlagBoolean {
			def, _ := f.spec.Default.(bool)
			fs.Bool(f.cli, def, desc)
		} else {
			def, _ := f.spec.Default.(string)
			fs.String(f.cli, def, desc)
		}
	}
}

// checkExtFlagValues refuses an extension's string flag written without
// "=" whose next argument begins with - or @ (or that is the last
// argument). pflag would take that argument as the value; the established
// harness takes such an argument as a flag or file of its own and reports
// that the extension's flag requires a value, and so does pi: a value
// beginning with - is given as --flag=VALUE.
func checkExtFlagValues(args []string, flags []extFlag) error {
	str := map[string]bool{}
	for _, f := range flags {
		if f.spec.Type != abi.FlagBoolean {
			str[f.cli] = true
		}
	}
	for i, a := range args {
		if a == "--" {
			return nil
		}
		name, ok := strings.CutPrefix(a, "--")
		if !ok || !str[name] || (i > 0 && takesValue(args[i-1])) {
			continue
		}
		if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") || strings.HasPrefix(args[i+1], "@") {
			return usagef("extension flag --%s requires a value (one beginning with - or @ is written --%s=VALUE)", name, name)
		}
	}
	return nil
}

// extFlagValues are the extension flags the command line gave, by
// extension and flag name, as host.Config.Flags takes them.
func extFlagValues(fs *pflag.FlagSet, flags []extFlag) map[string]map[string]string {
	var out map[string]map[string]string
	for _, f := range flags {
		if !fs.Changed(f.cli) {
			continue
		}
		if out == nil {
			out = map[string]map[string]string{}
		}
		if out[f.ext] == nil {
			out[f.ext] = map[string]string{}
		}
		out[f.ext][f.spec.Name] = fs.Lookup(f.cli).Value.String()
	}
	return out
}

// writeExtFlagHelp prints the extensions' flags as a group of pi --help.
func writeExtFlagHelp(w io.Writer, flags []extFlag) {
	if len(flags) == 0 {
		return
	}
	fs := pflag.NewFlagSet("extensions", pflag.ContinueOnError)
	registerExtFlags(fs, flags)
	var list []*pflag.Flag
	for _, f := range flags {
		fl := fs.Lookup(f.cli)
		fl.Usage = esc(fl.Usage) + " [" + f.ext + "]"
		list = append(list, fl)
	}
	writeFlagGroup(w, "Extension flags", list)
}
