package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/piwasm/pi/core/mcp"
	"github.com/piwasm/pi/core/resources"
	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/core/tool"
	"github.com/spf13/pflag"
)

const mcpUsage = `Usage:
  pi mcp add NAME [options] -- COMMAND [ARGS...]   add or replace a stdio server
  pi mcp add NAME [options] --url URL              add or replace a streamable HTTP server
  pi mcp remove NAME [-l]                          remove a server from mcp.json
  pi mcp list [--json]                             connect to every enabled server; show state, tools, errors
  pi mcp get NAME [--json]                         show one server's configuration
  pi mcp check NAME [--json]                       show the sandbox policy a stdio server runs under
  pi mcp login NAME [--timeout SECONDS]            sign in to an HTTP server with OAuth (browser, PKCE)
  pi mcp logout NAME                               delete the stored OAuth credentials of a server

add and remove change the agent dir's mcp.json, or the project's .pi/mcp.json
with -l/--local. Options of add: --env KEY=VALUE, --cwd DIR, --header KEY=VALUE,
--bearer-token-env-var NAME, --exposure codemode|deferred|direct|hidden,
--description TEXT, --oauth-client-id ID, --oauth-client-secret S,
--oauth-callback-port N, --oauth-client-name NAME,
--oauth-client-registration auto|cimd|dcr. See docs/mcp.md.
`

// cmdMCP is `pi mcp`: the established harness's add, remove and list on
// the same mcp.json files, and pi's get and check.
func (a *app) cmdMCP(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, mcpUsage)
		return usagef("pi mcp needs a subcommand")
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(a.stdout, mcpUsage)
		return errHelp
	case "add":
		return a.mcpAdd(args[1:])
	case "remove":
		return a.mcpRemove(args[1:])
	case "list":
		return a.mcpList(ctx, args[1:])
	case "get":
		return a.mcpGet(args[1:])
	case "check":
		return a.mcpCheck(ctx, args[1:])
	case "login":
		return a.mcpLogin(ctx, args[1:])
	case "logout":
		return a.mcpLogout(args[1:])
	}
	return usagef("unknown mcp command %q (add, remove, list, get, check)", args[0])
}

// mcpFile is the file add and remove change: the agent dir's, or with
// local the project's .pi/mcp.json in the working directory.
func (a *app) mcpFile(c *common, local bool) (file, scope string, err error) {
	if local {
		wd := a.wd
		if c.cwd != "" {
			wd = c.cwd
		}
		return filepath.Join(resources.ProjectDir(wd), mcp.FileName), "project", nil
	}
	return filepath.Join(resources.AgentDir(a.getenv, a.home), mcp.FileName), "global", nil
}

func parsePairs(flag string, vals []string) ([][2]string, error) {
	var out [][2]string
	for _, v := range vals {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return nil, usagef("--%s %q: want KEY=VALUE", flag, v)
		}
		out = append(out, [2]string{k, val})
	}
	return out, nil
}

func (a *app) mcpAdd(args []string) error {
	fs := pflag.NewFlagSet("mcp add", pflag.ContinueOnError)
	var c common
	c.register(fs)
	local := fs.BoolP("local", "l", false, "write the project's .pi/mcp.json")
	env := fs.StringArray("env", nil, "KEY=VALUE for a stdio server's environment (repeatable)")
	cwd := fs.String("cwd-dir", "", "")
	_ = fs.MarkHidden("cwd-dir")
	url := fs.String("url", "", "the streamable HTTP endpoint")
	headers := fs.StringArray("header", nil, "KEY=VALUE sent to an HTTP server (repeatable)")
	bearer := fs.String("bearer-token-env-var", "", "send Authorization: Bearer ${NAME}")
	exposure := fs.String("exposure", "", "codemode, deferred, direct or hidden")
	desc := fs.String("description", "", "what the server offers, in a sentence")
	oauth := mcp.OAuth{}
	fs.StringVar(&oauth.ClientID, "oauth-client-id", "", "")
	fs.StringVar(&oauth.ClientSecret, "oauth-client-secret", "", "")
	fs.IntVar(&oauth.CallbackPort, "oauth-callback-port", 0, "")
	fs.StringVar(&oauth.ClientName, "oauth-client-name", "", "")
	fs.StringVar(&oauth.ClientRegistration, "oauth-client-registration", "", "")
	// The established harness's --cwd is the server's working directory;
	// pi's common --cwd (where to run) is renamed out of its way.
	for i, arg := range args {
		if arg == "--" {
			break
		}
		if arg == "--cwd" {
			args[i] = "--cwd-dir"
		} else if strings.HasPrefix(arg, "--cwd=") {
			args[i] = "--cwd-dir=" + strings.TrimPrefix(arg, "--cwd=")
		}
	}
	var command []string
	for i, arg := range args {
		if arg == "--" {
			command = args[i+1:]
			args = args[:i]
			break
		}
	}
	rest, err := c.parse(fs, args)
	if err != nil {
		return a.helpOr(err, "pi mcp add NAME [options] -- COMMAND [ARGS...] | --url URL", fs)
	}
	if len(rest) != 1 {
		return usagef("pi mcp add takes one server name, then -- COMMAND [ARGS...] or --url URL")
	}
	name := rest[0]
	var e mcp.Entry
	switch {
	case *url != "" && len(command) > 0:
		return usagef("give either -- COMMAND or --url, not both")
	case *url != "":
		if len(*env) > 0 || *cwd != "" {
			return usagef("--env and --cwd are for stdio servers")
		}
		hs, err := parsePairs("header", *headers)
		if err != nil {
			return err
		}
		if *bearer != "" {
			hs = append(hs, [2]string{"Authorization", "Bearer ${" + *bearer + "}"})
		}
		e.URL = *url
		e.SetHeaders(hs)
		if oauth != (mcp.OAuth{}) {
			e.OAuth = &oauth
		}
	case len(command) > 0:
		if len(*headers) > 0 || *bearer != "" || oauth != (mcp.OAuth{}) {
			return usagef("--header, --bearer-token-env-var and --oauth-* are for HTTP servers")
		}
		kv, err := parsePairs("env", *env)
		if err != nil {
			return err
		}
		e.Command, e.Args, e.Cwd = command[0], command[1:], *cwd
		e.SetEnv(kv)
	default:
		return usagef("pi mcp add %s needs -- COMMAND [ARGS...] (stdio) or --url URL (streamable HTTP)", name)
	}
	if *exposure != "" {
		switch *exposure {
		case "codemode", "deferred", "direct", "hidden", "codemode-deferred":
		default:
			return usagef("--exposure %q: want codemode, deferred, direct or hidden", *exposure)
		}
		e.Exposure = *exposure
	}
	e.Description = *desc
	file, scope, err := a.mcpFile(&c, *local)
	if err != nil {
		return err
	}
	if _, err := mcp.AddServer(file, name, e); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Added %s MCP server %q in %s.\nCheck it with: pi mcp list\n", scope, name, file)
	return nil
}

func (a *app) mcpRemove(args []string) error {
	fs := pflag.NewFlagSet("mcp remove", pflag.ContinueOnError)
	var c common
	c.register(fs)
	local := fs.BoolP("local", "l", false, "change the project's .pi/mcp.json")
	rest, err := c.parse(fs, args)
	if err != nil {
		return a.helpOr(err, "pi mcp remove NAME [-l]", fs)
	}
	if len(rest) != 1 {
		return usagef("pi mcp remove takes one server name")
	}
	file, scope, err := a.mcpFile(&c, *local)
	if err != nil {
		return err
	}
	if err := mcp.RemoveServer(file, rest[0]); err != nil {
		if errors.Is(err, mcp.ErrNoServer) || errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no %s MCP server named %q in %s", scope, rest[0], file)
		}
		return err
	}
	fmt.Fprintf(a.stdout, "Removed %s MCP server %q from %s.\n", scope, rest[0], file)
	return nil
}

// mcpWorld loads the configuration the way a session in this directory
// would see it, with a manager whose stdio servers start confined.
func (a *app) mcpWorld(c *common) (*resources.Loaded, *mcp.Config, *sandbox.Policy, error) {
	l, err := a.load(c)
	if err != nil {
		return nil, nil, nil, err
	}
	p, warns, err := a.buildPolicy(sandboxFlags{}, l.Values, l.Cwd)
	for _, w := range warns {
		fmt.Fprintf(a.stderr, "pi: warning: %s\n", esc(w.Error()))
	}
	if err != nil {
		return nil, nil, nil, err
	}
	return l, mcp.Load(a.mcpPaths(l)), p, nil
}

type mcpListServer struct {
	Name         string                  `json:"name"`
	Scope        string                  `json:"scope"`
	Source       string                  `json:"source"`
	Enabled      bool                    `json:"enabled"`
	Exposure     mcp.Exposure            `json:"exposure"`
	Transport    string                  `json:"transport"`
	State        mcp.State               `json:"state"`
	Tools        []string                `json:"tools"`
	ToolExposure map[string]mcp.Exposure `json:"toolExposure,omitempty"`
	Error        string                  `json:"error,omitempty"`
}

func (a *app) mcpList(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("mcp list", pflag.ContinueOnError)
	var c common
	c.register(fs)
	rest, err := c.parse(fs, args)
	if err != nil {
		return a.helpOr(err, "pi mcp list [--json]", fs)
	}
	if len(rest) > 0 {
		return usagef("pi mcp list takes no arguments")
	}
	l, cfg, policy, err := a.mcpWorld(&c)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	var problems []string
	m, closeMCP := a.newMCPManager(l, policy, exe, tool.NewRegistry(), func(string) {}, nil)
	for _, p := range cfg.Problems {
		problems = append(problems, p.String())
	}
	var statuses []mcp.Status
	if m != nil {
		m.Start()
		m.WaitAll(ctx)
		statuses = m.Status()
		closeMCP()
	}
	failed := 0
	for _, p := range cfg.Problems {
		if !p.Warning {
			failed++
		}
	}
	out := struct {
		Servers []mcpListServer `json:"servers"`
		Errors  []string        `json:"errors"`
	}{Servers: []mcpListServer{}, Errors: problems}
	if out.Errors == nil {
		out.Errors = []string{}
	}
	for _, st := range statuses {
		if st.Enabled && st.State != mcp.StateConnected {
			failed++
		}
	}
	out.Servers = append(out.Servers, listServers(statuses)...)
	if c.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		writeMCPList(a.stdout, out.Servers, a.display)
		for _, p := range problems {
			fmt.Fprintf(a.stderr, "pi: mcp: %s\n", esc(p))
		}
		if len(out.Servers) == 0 && len(problems) == 0 {
			fmt.Fprintf(a.stdout, "No MCP servers configured (%s).\n", filepath.Join(l.AgentDir, mcp.FileName))
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d MCP server entr%s invalid or not connected", failed, map[bool]string{true: "y is", false: "ies are"}[failed == 1])
	}
	return nil
}

// listServers is statuses in pi mcp list's shape (the established
// harness's): tool names, and the exposures that differ from the server's.
func listServers(statuses []mcp.Status) []mcpListServer {
	var out []mcpListServer
	for _, st := range statuses {
		s := mcpListServer{Name: st.Name, Scope: st.Scope, Source: st.Source, Enabled: st.Enabled, Exposure: st.Exposure,
			Transport: st.Transport, State: st.State, Tools: []string{}, Error: st.Error}
		for _, t := range st.Tools {
			s.Tools = append(s.Tools, t.Tool)
			if t.Exposure != st.Exposure {
				if s.ToolExposure == nil {
					s.ToolExposure = map[string]mcp.Exposure{}
				}
				s.ToolExposure[t.Tool] = t.Exposure
			}
		}
		out = append(out, s)
	}
	return out
}

// writeMCPList prints servers as the established harness's pi mcp list
// does: a line per server, then its transport, its tools (marking those
// whose exposure differs from the server's) or its error, indented.
func writeMCPList(w io.Writer, servers []mcpListServer, display func(string) string) {
	for _, s := range servers {
		head := string(s.State)
		if s.State == mcp.StateConnected {
			n := len(s.Tools)
			head = fmt.Sprintf("connected, %d tool%s", n, map[bool]string{true: "", false: "s"}[n == 1])
		}
		fmt.Fprintf(w, "%s: %s (%s, %s)\n", s.Name, head, s.Exposure, s.Scope)
		fmt.Fprintf(w, "  %s\n", display(s.Transport))
		if len(s.Tools) > 0 {
			var names []string
			for _, t := range s.Tools {
				if e, ok := s.ToolExposure[t]; ok {
					t += " [" + string(e) + "]"
				}
				names = append(names, t)
			}
			fmt.Fprintf(w, "  tools: %s\n", display(strings.Join(names, ", ")))
		}
		if s.Error != "" {
			for _, line := range strings.Split(s.Error, "\n") {
				fmt.Fprintf(w, "  %s\n", display(line))
			}
		}
	}
}

func (a *app) mcpServerArg(name string, args []string) (*common, *mcp.Server, *resources.Loaded, *sandbox.Policy, error) {
	fs := pflag.NewFlagSet("mcp "+name, pflag.ContinueOnError)
	var c common
	c.register(fs)
	rest, err := c.parse(fs, args)
	if err != nil {
		return nil, nil, nil, nil, a.helpOr(err, "pi mcp "+name+" NAME [--json]", fs)
	}
	if len(rest) != 1 {
		return nil, nil, nil, nil, usagef("pi mcp %s takes one server name", name)
	}
	l, cfg, p, err := a.mcpWorld(&c)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	s := cfg.Get(rest[0])
	if s == nil {
		var names []string
		for _, s := range cfg.Servers {
			names = append(names, s.Name)
		}
		for _, pr := range cfg.Problems {
			if pr.Server == rest[0] {
				return nil, nil, nil, nil, fmt.Errorf("MCP server %q is invalid: %s", rest[0], pr.String())
			}
		}
		return nil, nil, nil, nil, fmt.Errorf("no MCP server %q (configured: %s)", rest[0], strings.Join(append(names, "none")[:max(len(names), 1)], ", "))
	}
	return &c, s, l, p, nil
}

type mcpGetJSON struct {
	Name         string             `json:"name"`
	Scope        string             `json:"scope"`
	Source       string             `json:"source"`
	Override     string             `json:"override,omitempty"`
	Type         string             `json:"type"`
	Command      string             `json:"command,omitempty"`
	Args         []string           `json:"args,omitempty"`
	Cwd          string             `json:"cwd,omitempty"`
	Env          []string           `json:"env,omitempty"`
	URL          string             `json:"url,omitempty"`
	Headers      []string           `json:"headers,omitempty"`
	OAuth        bool               `json:"oauth,omitempty"`
	Enabled      bool               `json:"enabled"`
	Exposure     mcp.Exposure       `json:"exposure"`
	ToolExposure []mcp.ToolExposure `json:"toolExposure,omitempty"`
	TimeoutSec   float64            `json:"timeout"`
	Description  string             `json:"description,omitempty"`
	Network      bool               `json:"network,omitempty"`
	Writable     []string           `json:"writableRoots,omitempty"`
}

// mcpGet shows one server's effective configuration; env and header
// values are left out (they often hold credentials), their names shown.
func (a *app) mcpGet(args []string) error {
	c, s, _, _, err := a.mcpServerArg("get", args)
	if err != nil {
		return err
	}
	g := mcpGetJSON{Name: s.Name, Scope: s.Scope, Source: s.Source, Override: s.Override, Type: s.Transport, Command: s.Command, Args: s.Args,
		URL: s.URL, OAuth: s.OAuth != nil, Enabled: s.Enabled, Exposure: s.Exposure, ToolExposure: s.ToolExposure,
		TimeoutSec: s.Timeout.Seconds(), Description: s.Description, Network: s.Sandbox.Network, Writable: s.Sandbox.WritableRoots}
	if s.Transport == "stdio" {
		g.Cwd = s.Cwd
	}
	for _, kv := range s.Env {
		g.Env = append(g.Env, kv[0])
	}
	for _, kv := range s.Headers {
		g.Headers = append(g.Headers, kv[0])
	}
	if c.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(g)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, a.display(v))
		}
	}
	row("name", g.Name)
	row("scope", g.Scope)
	row("source", g.Source)
	row("override", g.Override)
	row("type", g.Type)
	row("command", s.TransportText())
	row("cwd", g.Cwd)
	row("env", strings.Join(g.Env, ", "))
	row("headers", strings.Join(g.Headers, ", "))
	row("enabled", fmt.Sprint(g.Enabled))
	row("exposure", string(g.Exposure))
	for _, te := range g.ToolExposure {
		row("  "+te.Pattern, string(te.Exposure))
	}
	row("timeout", s.Timeout.String())
	row("description", g.Description)
	return tw.Flush()
}

// mcpCheck shows the sandbox policy a stdio server runs under, as pi
// sandbox check shows bash's.
func (a *app) mcpCheck(ctx context.Context, args []string) error {
	c, s, l, base, err := a.mcpServerArg("check", args)
	if err != nil {
		return err
	}
	if s.Transport == "http" {
		var names []string
		for _, kv := range s.Headers {
			names = append(names, kv[0])
		}
		sort.Strings(names)
		msg := fmt.Sprintf("%s is a streamable HTTP server: pi runs nothing for it. It connects to %s with the headers of its entry (%s) and the proxy of the environment (HTTPS_PROXY, HTTP_PROXY, NO_PROXY).\n",
			s.Name, s.URL, strings.Join(append(names, "none")[:max(len(names), 1)], ", "))
		if c.json {
			return writeJSON(a.stdout, map[string]any{"name": s.Name, "type": "http", "url": s.URL, "headers": names, "process": false})
		}
		_, err := io.WriteString(a.stdout, a.display(msg))
		return err
	}
	tmp := os.TempDir()
	if mcp.ProjectInTemp(tmp, l.Cwd) {
		// A directory of its own, made when the server starts.
		tmp = filepath.Join(tmp, "pi-mcp-"+s.Name+"-*")
	}
	p := mcp.ServerPolicy(base, s, l.AgentDir, tmp)
	out := sandboxCheckJSON{
		Mode: p.Mode, Network: p.Network, WritableRoots: emptyIfNil(p.Roots), Devices: p.Devices,
		Protected: emptyIfNil(p.Protected()), DenyRead: emptyIfNil(p.DenyRead()),
		Kernel: p.Enforcement(), Confined: p.Confined(), Enforced: p.Enforced(), Notice: p.Notice(),
		Settings: emptyIfNilS(l.Settings.Files), Warnings: []string{},
	}
	out.SelfTest = a.sandboxSelfTest(ctx, p, l.Cwd)
	if c.json {
		return writeJSON(a.stdout, struct {
			Server  string `json:"server"`
			Command string `json:"command"`
			sandboxCheckJSON
		}{s.Name, s.TransportText(), out})
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "server\t%s: %s\n", s.Name, a.display(s.TransportText()))
	fmt.Fprintf(tw, "mode\t%s\n", p.Mode)
	net := "on (its entry's sandbox.network)"
	if !p.Network {
		net = "off (IPv4/IPv6 sockets refused; \"sandbox\": {\"network\": true} in its entry allows them)"
	}
	fmt.Fprintf(tw, "network\t%s\n", net)
	if p.Mode == sandbox.ModeOff {
		fmt.Fprintf(tw, "writable\teverything pi's user may write (sandbox off)\n")
	} else {
		fmt.Fprintf(tw, "writable\t\n")
		for _, r := range p.Roots {
			fmt.Fprintf(tw, "  %s\t%s\n", r.Path, r.Reason)
		}
	}
	if len(p.DenyRead()) > 0 {
		fmt.Fprintf(tw, "unreadable\t%s\n", kernelOrTools(p))
		for _, r := range p.DenyRead() {
			fmt.Fprintf(tw, "  %s\t%s\n", r.Path, r.Reason)
		}
	}
	fmt.Fprintf(tw, "confined\t%v\n", p.Confined())
	fmt.Fprintf(tw, "enforced\t%v\n", p.Enforced())
	fmt.Fprintf(tw, "self-test\t%s\n", out.SelfTest)
	tw.Flush()
	if n := p.Notice(); n != "" {
		fmt.Fprintln(a.stdout, n)
	}
	return nil
}

func emptyIfNilS(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// mcpLogin signs in to an HTTP server with OAuth: the authorization URL is
// printed (and opened with $BROWSER when set), the redirect comes back to
// a loopback listener, the tokens go to <agent dir>/mcp-auth.json (0600).
func (a *app) mcpLogin(ctx context.Context, args []string) error {
	fs := pflag.NewFlagSet("mcp login", pflag.ContinueOnError)
	var c common
	c.register(fs)
	fs.BoolP("local", "l", false, "the server must be defined in the project's .pi/mcp.json")
	timeout := fs.Int("timeout", 300, "give up on the whole sign-in after this many seconds")
	rest, err := c.parse(fs, args)
	if err != nil {
		return a.helpOr(err, "pi mcp login NAME [-l] [--timeout SECONDS]", fs)
	}
	if len(rest) != 1 {
		return usagef("pi mcp login takes one server name")
	}
	_, s, l, _, err := a.mcpServerArg("login", rest)
	if err != nil {
		return err
	}
	if local, _ := fs.GetBool("local"); local && s.Scope != "project" {
		return fmt.Errorf("MCP server %q is not defined in the project's .pi/mcp.json", s.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(*timeout)*time.Second)
	defer cancel()
	store := &mcp.AuthStore{Path: filepath.Join(l.AgentDir, mcp.AuthFile)}
	warn := func(msg string) { fmt.Fprintf(a.stderr, "pi: warning: %s\n", esc(msg)) }
	err = mcp.Login(ctx, s, store, mcp.LoginOptions{Version: version, Warn: warn, Open: func(u string) error {
		fmt.Fprintf(a.stderr, "Open this address to sign in to %s:\n  %s\n", s.Name, u)
		if b := a.getenv("BROWSER"); b != "" {
			cmd := exec.Command(b, u)
			cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
			if err := cmd.Start(); err == nil {
				go cmd.Wait()
			}
		}
		return nil
	}})
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Signed in to MCP server %q; the credentials are in %s.\n", s.Name, store.Path)
	return nil
}

func (a *app) mcpLogout(args []string) error {
	fs := pflag.NewFlagSet("mcp logout", pflag.ContinueOnError)
	var c common
	c.register(fs)
	fs.BoolP("local", "l", false, "")
	rest, err := c.parse(fs, args)
	if err != nil {
		return a.helpOr(err, "pi mcp logout NAME", fs)
	}
	_, s, l, _, err := a.mcpServerArg("logout", rest)
	if err != nil {
		return err
	}
	store := &mcp.AuthStore{Path: filepath.Join(l.AgentDir, mcp.AuthFile)}
	found, err := store.Logout(s)
	if err != nil {
		return err
	}
	if !found {
		fmt.Fprintf(a.stdout, "No stored credentials for MCP server %q.\n", s.Name)
		return nil
	}
	fmt.Fprintf(a.stdout, "Signed out of MCP server %q.\n", s.Name)
	return nil
}
