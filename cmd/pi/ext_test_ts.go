package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/piwasm/pi/core/hooks/replay"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/host"
	"github.com/piwasm/pi/host/jsext"
)

// extTestScript is pi ext test for a TypeScript or JavaScript extension
// (host/jsext): the script bundled and run in pi's JavaScript sandbox as a
// run would, one hook called with a JSON event through the same replay as
// for WebAssembly packages, twice (cold and warm).
func (a *app) extTestScript(ctx context.Context, dir, hook, eventFile, cwd string, grantAll, asJSON bool) error {
	if hook == "" {
		return usagef("ext test: --hook is required for a TypeScript extension (one of the hooks its pi.on calls name, as pi names them: tool_call, before_agent_start, ...)")
	}
	var raw []byte
	var err error
	switch eventFile {
	case "-":
		raw, err = io.ReadAll(a.stdin)
	case "":
		def := filepath.Join(dir, "event.json")
		if fi, serr := os.Stat(dir); serr == nil && !fi.IsDir() {
			def = filepath.Join(filepath.Dir(dir), "event.json")
		}
		if raw, err = os.ReadFile(def); errors.Is(err, fs.ErrNotExist) {
			return usagef("ext test: --event FILE is required (%s does not exist; use - for stdin)", def)
		}
	default:
		raw, err = os.ReadFile(a.absFrom(eventFile))
	}
	if err != nil {
		return fmt.Errorf("read the event: %w", err)
	}
	call, err := replay.Prepare(hook, raw, nil)
	if err != nil {
		return usagef("ext test: %v", err)
	}
	root := a.wd
	if cwd != "" {
		c := common{cwd: cwd}
		if root, err = a.resolveCwd(&c); err != nil {
			return err
		}
	}
	logs := &testLogs{}
	rt, err := jsext.NewRuntime(ctx, jsext.Config{AgentDir: a.agentDir(), ProjectRoot: resources.ProjectRoot(root), Cwd: root, Home: a.home, Log: logs.add, Mode: "print"})
	if err != nil {
		return err
	}
	defer rt.Close(ctx)
	store, err := host.OpenGrantStore(a.agentDir())
	if err != nil {
		return fmt.Errorf("read stored grants: %w", err)
	}
	name := jsext.NameFor(dir)
	g, ok := store.Get(name)
	if grantAll {
		g, ok, _ = scriptGrant(g, ok, []string{""})
	}
	ext, diags, err := rt.Load(ctx, dir, jsext.Options{Grant: g, HasGrant: ok})
	if err != nil {
		printDiagnostics(a.stderr, diags)
		return fmt.Errorf("extension %q does not load: %w", name, err)
	}
	if !asJSON {
		printDiagnostics(a.stderr, diags)
	}
	if !ext.Handles(hook) {
		return fmt.Errorf("extension %q has no handler for the %s hook", name, hook)
	}
	start := time.Now()
	res, err := call(ctx, ext)
	first := time.Since(start)
	callLogs := logs.take()
	if err != nil {
		for _, l := range callLogs {
			fmt.Fprintln(a.stderr, esc(l))
		}
		return fmt.Errorf("%v (after %s)", err, fmtDur(first))
	}
	start = time.Now()
	if _, err := call(ctx, ext); err != nil {
		return fmt.Errorf("second call: %v", err)
	}
	warm := time.Since(start)
	logs.take()
	if asJSON {
		out := extTestJSON{Extension: name, Hook: hook, Result: res, FirstCallMs: ms(first), WarmCallMs: ms(warm), Logs: callLogs}
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
	if u := ext.Unsupported(); len(u) > 0 {
		fmt.Fprintf(a.stderr, "note: pi does not honour %s (the calls return as without a terminal UI)\n", strings.Join(u, ", "))
	}
	fmt.Fprintf(a.stdout, "%s %s: first call %s, warm call %s\n", name, hook, fmtDur(first), fmtDur(warm))
	return nil
}
