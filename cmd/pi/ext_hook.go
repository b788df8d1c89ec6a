package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks/replay"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/host"
	"github.com/piwasm/pi/host/jsext"
)

type extTestJSON struct {
	Extension   string           `json:"extension"`
	Hook        string           `json:"hook"`
	Result      any              `json:"result"`
	FirstCallMs float64          `json:"firstCallMs"`
	WarmCallMs  float64          `json:"warmCallMs"`
	Granted     abi.Capabilities `json:"granted"`
	Logs        []string         `json:"logs"`
}

// cmdExtTest runs ext test; with --json a failure is also a JSON object on
// stdout ({"error": ..., "usage": bool}), so a script reading stdout gets
// JSON whatever happens. Exit codes and the stderr line are unchanged.
func (a *app) cmdExtTest(ctx context.Context, args []string) error {
	err := a.extTest(ctx, args)
	if err == nil || errors.Is(err, errHelp) || !wantsJSON(args) {
		return err
	}
	var ue *usageError
	if werr := writeJSON(a.stdout, struct {
		Error string `json:"error"`
		Usage bool   `json:"usage"`
	}{err.Error(), errors.As(err, &ue)}); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// wantsJSON reports whether the arguments ask for --json (also when they do
// not parse, so a usage error is JSON too).
func wantsJSON(args []string) bool {
	for _, s := range args {
		if s == "--" {
			return false
		}
		if s == "--json" || s == "--json=true" {
			return true
		}
	}
	return false
}

func (a *app) extTest(ctx context.Context, args []string) error {
	flags := newExtFlags("test")
	hook := flags.String("hook", "", "hook to call: "+strings.Join(abi.Hooks, ", "))
	eventFile := flags.String("event", "", `file holding the JSON event ("-" reads stdin)`)
	grantAll := flags.Bool("grant", false, "grant everything the manifest requests, for this run only (otherwise a stored grant applies)")
	cwd := flags.String("cwd", "", "project directory whose root file grants resolve against (default: the current directory)")
	fetches := flags.StringArray("fetch", nil, "serve KEY (system_prompt, skills, context:PATH, section:NAME) from FILE when the guest fetches it (before_agent_start); repeatable")
	asJSON := flags.Bool("json", false, "print JSON for scripts")
	toolName := flags.String("tool", "", "run the declared tool NAME instead of a hook")
	toolArgs := flags.String("args", "", "the tool's arguments as a JSON object (with --tool; default {})")
	dir, err := a.parseExtDir(flags, args, "pi ext test [DIR] [--hook HOOK] [--event FILE] [--grant] [--json]\n"+
		"pi ext test [DIR] --tool NAME [--args JSON] [--grant] [--json]\n\n"+
		"Loads the built module in DIR (default: the current directory) as pi does and\n"+
		"calls one hook, or runs one of its tools. Without --hook, the manifest's hook if\n"+
		"it declares exactly one; without --event, DIR/event.json.")
	if err != nil {
		return err
	}
	if jsext.IsExtension(dir) {
		if *toolName != "" || *toolArgs != "" || len(*fetches) > 0 {
			return usagef("ext test: --tool, --args and --fetch are for WebAssembly packages; a TypeScript extension is tested with --hook and --event")
		}
		return a.extTestScript(ctx, dir, *hook, *eventFile, *cwd, *grantAll, *asJSON)
	}
	if *toolName != "" {
		if *hook != "" || *eventFile != "" {
			return usagef("ext test: --tool runs a tool; it does not take --hook or --event (give the arguments with --args)")
		}
		return a.extTestTool(ctx, dir, *toolName, *toolArgs, *grantAll, *cwd, *asJSON)
	}
	if *toolArgs != "" {
		return usagef("ext test: --args goes with --tool NAME")
	}
	if *hook == "" {
		m, err := readManifest(dir)
		if err != nil {
			return err
		}
		if len(m.Hooks) != 1 {
			return usagef("ext test: --hook is required: %s declares %d hooks (%s)", m.Name, len(m.Hooks), strings.Join(m.Hooks, ", "))
		}
		*hook = m.Hooks[0]
	}
	if abi.ExportFor(*hook) == "" {
		return usagef("ext test: unknown hook %q (want one of %s)", *hook, strings.Join(abi.Hooks, ", "))
	}
	var raw []byte
	switch *eventFile {
	case "-":
		raw, err = io.ReadAll(a.stdin)
	case "":
		def := filepath.Join(dir, "event.json")
		if raw, err = os.ReadFile(def); errors.Is(err, fs.ErrNotExist) {
			return usagef("ext test: --event FILE is required (%s does not exist; use - for stdin)", def)
		}
	default:
		raw, err = os.ReadFile(a.absFrom(*eventFile))
	}
	if err != nil {
		return fmt.Errorf("read the event: %w", err)
	}
	fetchMap := map[string][]byte{}
	for _, f := range *fetches {
		key, file, ok := strings.Cut(f, "=")
		if !ok || key == "" || file == "" {
			return usagef("ext test: --fetch %q: want KEY=FILE", f)
		}
		b, err := os.ReadFile(a.absFrom(file))
		if err != nil {
			return fmt.Errorf("--fetch %s: %w", key, err)
		}
		fetchMap[key] = b
	}
	call, err := replay.Prepare(*hook, raw, host.FetchMap(fetchMap))
	if err != nil {
		return err
	}
	pkg, err := readPackage(dir)
	if err != nil {
		return err
	}
	name := pkg.Manifest.Name
	if !pkg.Manifest.Handles(*hook) {
		hooks := strings.Join(pkg.Manifest.Hooks, ", ")
		if hooks == "" {
			hooks = "none"
		}
		return fmt.Errorf("extension %q does not declare the %s hook (its hooks: %s)", name, *hook, hooks)
	}
	x, _, logs, err := a.loadForTest(ctx, dir, *cwd, pkg, *grantAll, *asJSON)
	if err != nil {
		return err
	}
	defer x.rt.Close(ctx)
	// The extension as the dispatcher sees it in a run (granted files
	// served, every hook it declares reachable), without a memo store.
	h := host.Handler(x.Extension, nil)

	start := time.Now()
	res, err := call(ctx, h)
	first := time.Since(start)
	flushLogs := logs.take
	if err != nil {
		for _, l := range flushLogs() {
			fmt.Fprintln(a.stderr, esc(l))
		}
		return fmt.Errorf("%v (after %s)", err, fmtDur(first))
	}
	callLogs := flushLogs()
	start = time.Now()
	_, err = call(ctx, h)
	warm := time.Since(start)
	flushLogs()
	if err != nil {
		return fmt.Errorf("second call: %v", err)
	}

	if *asJSON {
		out := extTestJSON{Extension: name, Hook: *hook, Result: res, FirstCallMs: ms(first), WarmCallMs: ms(warm), Granted: x.Granted(), Logs: callLogs}
		if out.Logs == nil {
			out.Logs = []string{}
		}
		return writeJSON(a.stdout, out)
	}
	for _, l := range callLogs {
		fmt.Fprintln(a.stderr, esc(l))
	}
	if err := writeJSON(a.displayWriter(), res); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s %s: first call %s, warm call %s\n", name, *hook, fmtDur(first), fmtDur(warm))
	return nil
}

type extToolJSON struct {
	Extension   string           `json:"extension"`
	Tool        string           `json:"tool"`
	Result      tool.Result      `json:"result"`
	Updates     []string         `json:"updates"`
	FirstCallMs float64          `json:"firstCallMs"`
	WarmCallMs  float64          `json:"warmCallMs"`
	Granted     abi.Capabilities `json:"granted"`
	Logs        []string         `json:"logs"`
}

// extTestTool runs one of the package's declared tools as a session would:
// the arguments are checked against the declared schema, the module is
// loaded under the stored grants (or all it asks for with --grant) and its
// limits, and a failure is the error result the model would read. The
// call runs twice, for the cold and the warm figure.
func (a *app) extTestTool(ctx context.Context, dir, name, rawArgs string, grantAll bool, cwd string, asJSON bool) error {
	pkg, err := readPackage(dir)
	if err != nil {
		return err
	}
	ext := pkg.Manifest.Name
	if _, ok := pkg.Manifest.ToolFor(name); !ok {
		var names []string
		for _, t := range pkg.Manifest.Tools {
			names = append(names, t.Name)
		}
		have := strings.Join(names, ", ")
		if have == "" {
			have = "none"
		}
		return usagef("ext test: extension %q declares no tool %q (its tools: %s)", ext, name, have)
	}
	if rawArgs == "" {
		rawArgs = "{}"
	}
	x, root, logs, err := a.loadForTest(ctx, dir, cwd, pkg, grantAll, asJSON)
	if err != nil {
		return err
	}
	defer x.rt.Close(ctx)
	var t tool.Tool
	for _, c := range x.Tools(root) {
		if c.Name == name {
			t = c
		}
	}
	args, err := t.Prepare(json.RawMessage(rawArgs))
	if err != nil {
		return usagef("ext test: --args: %v", err)
	}
	var updates []string
	call := func(record bool) tool.Result {
		res, _ := t.Run(ctx, tool.Call{ID: "ext-test", Name: name, Args: args}, func(p tool.Result) {
			if record {
				updates = append(updates, p.Text())
			}
		})
		return res
	}
	start := time.Now()
	res := call(true)
	first := time.Since(start)
	callLogs := logs.take()
	start = time.Now()
	call(false)
	warm := time.Since(start)

	if asJSON {
		out := extToolJSON{Extension: ext, Tool: name, Result: res, Updates: updates, FirstCallMs: ms(first), WarmCallMs: ms(warm), Granted: x.Granted(), Logs: callLogs}
		if out.Updates == nil {
			out.Updates = []string{}
		}
		if out.Logs == nil {
			out.Logs = []string{}
		}
		if err := writeJSON(a.stdout, out); err != nil {
			return err
		}
	} else {
		for _, l := range callLogs {
			fmt.Fprintln(a.stderr, esc(l))
		}
		for _, u := range updates {
			fmt.Fprintf(a.stderr, "update: %s\n", esc(u))
		}
		if err := writeJSON(a.displayWriter(), res); err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s tool %s: first call %s, warm call %s\n", ext, name, fmtDur(first), fmtDur(warm))
	}
	if res.IsError {
		return fmt.Errorf("tool %s returned an error result", name)
	}
	return nil
}

// loadForTest loads the extension in dir for pi ext test, as pi would in
// the project at cwd (default: the current directory), under the stored
// grants or, with grantAll, all its manifest asks for. It returns the
// extension, the project root and the log lines its calls write; the
// caller closes x.rt. Diagnostics are printed unless the output is JSON,
// and always when it does not load.
func (a *app) loadForTest(ctx context.Context, dir, cwd string, pkg *host.Package, grantAll, asJSON bool) (x *loadedOne, root string, logs *testLogs, err error) {
	root = a.wd
	if cwd != "" {
		c := common{cwd: cwd}
		if root, err = a.resolveCwd(&c); err != nil {
			return nil, "", nil, err
		}
	}
	store, err := host.OpenGrantStore(a.agentDir())
	if err != nil {
		return nil, "", nil, fmt.Errorf("read stored grants: %w", err)
	}
	name := pkg.Manifest.Name
	grants := store.Grants()
	if grantAll {
		grants = grants.Merge(host.Grants{name: host.GrantAll(pkg.Manifest, pkg.SHA256)})
	}
	logs = &testLogs{}
	cfg := host.Config{AgentDir: a.agentDir(), ProjectRoot: resources.ProjectRoot(root), Log: logs.add}
	x, diags, err := loadOne(ctx, cfg, dir, grants)
	if err != nil {
		return nil, "", nil, err
	}
	if x == nil {
		printDiagnostics(a.stderr, diags)
		return nil, "", nil, fmt.Errorf("extension %q does not load", name)
	}
	if !asJSON {
		printDiagnostics(a.stderr, diags)
	}
	return x, root, logs, nil
}

// testLogs collects the log lines of the extension under test; the host
// may log from several goroutines.
type testLogs struct {
	mu    sync.Mutex
	lines []string
}

func (l *testLogs) add(ext, level, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf("[%s] %s: %s", ext, level, msg))
}

// take returns the lines so far and forgets them.
func (l *testLogs) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}
