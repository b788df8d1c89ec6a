package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/host"
	"github.com/tetratelabs/wazero"
)

type inspectJSON struct {
	Name      string             `json:"name"`
	Version   string             `json:"version"`
	ABI       int                `json:"abi"`
	Dir       string             `json:"dir"`
	Module    string             `json:"module"`
	Size      int                `json:"size"`
	SHA256    string             `json:"sha256"`
	Hooks     []string           `json:"hooks"`
	Commands  []abi.CommandInfo  `json:"commands"`
	Flags     []abi.FlagSpec     `json:"flags,omitempty"`
	Shortcuts []abi.ShortcutSpec `json:"shortcuts,omitempty"`
	Tools     []inspectTool      `json:"tools"`
	Requested abi.Capabilities   `json:"requested"`
	Limits    abi.Limits         `json:"limits"`
	Failure   string             `json:"failure"`
	Exports   []string           `json:"exports"`
	// CompileMs is a first compile into an empty cache; CachedCompileMs
	// is the same module read back from that on-disk cache.
	CompileMs       float64           `json:"compileMs"`
	CachedCompileMs float64           `json:"cachedCompileMs"`
	Loads           bool              `json:"loads"`
	Grant           grantState        `json:"grant"`
	Diagnostics     []diag.Diagnostic `json:"diagnostics"`
}

func (a *app) cmdExtInspect(ctx context.Context, args []string) error {
	flags := newExtFlags("inspect")
	asJSON := flags.Bool("json", false, "print JSON for scripts")
	rest, err := a.parseExt(flags, args, "pi ext inspect DIR [--json]", 1, "the package DIR")
	if err != nil {
		return err
	}
	pkg, err := readPackage(a.absFrom(rest[0]))
	if err != nil {
		return err
	}
	m := pkg.Manifest
	out := inspectJSON{
		Name: m.Name, Version: m.Version, ABI: m.ABI, Dir: pkg.Dir, Module: pkg.ModulePath,
		Size: pkg.Size, SHA256: pkg.SHA256, Hooks: m.Hooks, Commands: m.Commands,
		Flags: m.Flags, Shortcuts: m.Shortcuts,
		Requested: m.Capabilities, Limits: m.Limits.Effective(), Failure: m.FailurePolicy(),
		Diagnostics: []diag.Diagnostic{},
	}
	if out.Hooks == nil {
		out.Hooks = []string{}
	}
	out.Tools = inspectTools(pkg)

	// Compile twice with a private cache: the first figure is a real cold
	// compile, the second the warm path through the on-disk cache.
	cacheDir, err := os.MkdirTemp("", "pi-ext-inspect-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cacheDir)
	for round := 0; round < 2; round++ {
		x, diags, err := loadOne(ctx, host.Config{AgentDir: cacheDir}, pkg.Dir, nil)
		if err != nil {
			return err
		}
		if x == nil {
			out.Diagnostics = append(out.Diagnostics, diags...)
			break
		}
		if round == 0 {
			out.Loads = true
			out.CompileMs = ms(x.CompileTime())
			out.Exports = x.Exports()
			out.Commands = x.Commands()
		} else {
			out.CachedCompileMs = ms(x.CompileTime())
		}
		x.rt.Close(ctx)
	}
	if !out.Loads {
		// Still list what the module exports, from a plain parse.
		out.Exports = moduleExports(ctx, pkg.ModulePath)
	}
	if out.Exports == nil {
		out.Exports = []string{}
	}
	if out.Commands == nil {
		out.Commands = []abi.CommandInfo{}
	}

	store, err := host.OpenGrantStore(a.agentDir())
	if err != nil {
		return fmt.Errorf("read stored grants: %w", err)
	}
	g, ok := store.Get(m.Name)
	out.Grant = grantFor(m.Capabilities, g, ok, pkg.SHA256)

	if *asJSON {
		if err := writeJSON(a.stdout, out); err != nil {
			return err
		}
	} else if err := printInspect(a, out); err != nil {
		return err
	}
	if !out.Loads {
		return fmt.Errorf("%s does not load (see the diagnostics)", m.Name)
	}
	return nil
}

// loadedOne is a single extension loaded on its own runtime.
type loadedOne struct {
	*host.Extension
	rt *host.Runtime
}

// loadOne loads the package in dir on a fresh runtime. It returns nil and
// the diagnostics when the package does not load; diagnostics about
// ungranted capabilities are kept only when the extension loads.
func loadOne(ctx context.Context, cfg host.Config, dir string, grants host.Grants) (*loadedOne, []diag.Diagnostic, error) {
	rt, err := host.NewRuntime(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("start the extension runtime: %w", err)
	}
	exts, diags := rt.Load(ctx, []string{dir}, grants)
	ds := diags
	if len(exts) != 1 {
		rt.Close(ctx)
		var keep []diag.Diagnostic
		for _, d := range ds {
			if d.Kind != host.DiagGrant {
				keep = append(keep, d)
			}
		}
		return nil, keep, nil
	}
	return &loadedOne{Extension: exts[0], rt: rt}, ds, nil
}

// moduleExports lists a module's exported functions without instantiating
// it (the interpreter only parses and validates).
func moduleExports(ctx context.Context, path string) []string {
	wasm, err := host.ReadRegularFile(path, host.MaxModuleBytes)
	if err != nil {
		return nil
	}
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer r.Close(ctx)
	cm, err := r.CompileModule(ctx, wasm)
	if err != nil {
		return nil
	}
	var names []string
	for name := range cm.ExportedFunctions() {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func printInspect(a *app, r inspectJSON) error {
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	orDash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	fmt.Fprintf(tw, "name\t%s %s\n", esc(r.Name), orDash(esc(r.Version)))
	fmt.Fprintf(tw, "abi\t%d\n", r.ABI)
	fmt.Fprintf(tw, "module\t%s\n", esc(r.Module))
	fmt.Fprintf(tw, "size\t%s (%d bytes)\n", fmtSize(r.Size), r.Size)
	fmt.Fprintf(tw, "sha256\t%s\n", r.SHA256)
	fmt.Fprintf(tw, "hooks\t%s\n", orDash(strings.Join(escAll(r.Hooks), ", ")))
	fmt.Fprintf(tw, "commands\t%s\n", commandNames(r.Commands))
	if len(r.Flags) > 0 {
		var fl []string
		for _, f := range r.Flags {
			s := "--" + abi.FlagCLIName(r.Name, f.Name)
			if f.Type == abi.FlagString {
				s += " VALUE"
			}
			fl = append(fl, s)
		}
		fmt.Fprintf(tw, "flags\t%s\n", esc(strings.Join(fl, ", ")))
	}
	if len(r.Shortcuts) > 0 {
		var ks []string
		for _, k := range r.Shortcuts {
			ks = append(ks, strings.TrimSpace(k.Key+" /"+k.Command+" "+k.Args))
		}
		fmt.Fprintf(tw, "keys\t%s\n", esc(strings.Join(ks, ", ")))
	}
	if len(r.Tools) == 0 {
		fmt.Fprintf(tw, "tools\t-\n")
	}
	for i, t := range r.Tools {
		label := ""
		if i == 0 {
			label = "tools"
		}
		fmt.Fprintf(tw, "%s\t%s\n", label, t.describe())
	}
	fmt.Fprintf(tw, "requests\t%s\n", capsText(r.Requested))
	fmt.Fprintf(tw, "limits\ttimeout %dms, memory %d MiB, output %d KiB per call\n", r.Limits.TimeoutMs, r.Limits.MemoryMiB, r.Limits.OutputKiB)
	fmt.Fprintf(tw, "on failure\t%s\n", esc(r.Failure))
	fmt.Fprintf(tw, "exports\t%s\n", orDash(strings.Join(escAll(r.Exports), ", ")))
	if r.Loads {
		fmt.Fprintf(tw, "compile\t%s cold, %s from the on-disk cache\n", fmtDur(msDur(r.CompileMs)), fmtDur(msDur(r.CachedCompileMs)))
	} else {
		fmt.Fprintf(tw, "compile\tdoes not load\n")
	}
	fmt.Fprintf(tw, "grant\t%s\n", r.Grant.describe())
	if err := tw.Flush(); err != nil {
		return err
	}
	printDiagnostics(a.stderr, r.Diagnostics)
	return nil
}

func msDur(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// inspectTool is a declared tool as inspect reports it: what the model is
// sent, straight from the manifest (the module is not asked).
type inspectTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Snippet     string          `json:"snippet,omitempty"`
	Guidelines  []string        `json:"guidelines,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Mode        string          `json:"mode"`
	Hints       abi.ToolHints   `json:"hints"`
}

func inspectTools(pkg *host.Package) []inspectTool {
	out := []inspectTool{}
	for _, t := range pkg.ToolSpecs() {
		mode := t.Mode
		if mode == "" {
			mode = abi.ToolParallel
		}
		out = append(out, inspectTool{Name: t.Name, Description: t.Description, Snippet: t.Snippet, Guidelines: t.Guidelines,
			Parameters: t.Schema, Mode: mode, Hints: t.Hints})
	}
	return out
}

// describe is the tool's line in the text report: name, parameters,
// mode and hints, then the snippet.
func (t inspectTool) describe() string {
	var params []string
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(t.Parameters, &schema)
	for p := range schema.Properties {
		params = append(params, p)
	}
	sort.Strings(params)
	var notes []string
	if t.Mode == abi.ToolSequential {
		notes = append(notes, "sequential")
	}
	if t.Hints.ReadOnly {
		notes = append(notes, "read-only")
	}
	if t.Hints.Destructive {
		notes = append(notes, "destructive")
	}
	if t.Hints.OpenWorld {
		notes = append(notes, "open-world")
	}
	s := fmt.Sprintf("%s(%s)", t.Name, strings.Join(params, ", "))
	if len(notes) > 0 {
		s += " [" + strings.Join(notes, ", ") + "]"
	}
	if t.Snippet != "" {
		s += ": " + t.Snippet
	}
	return esc(s)
}
