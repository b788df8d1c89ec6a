package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/piwasm/pi/core/settings"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/spf13/pflag"
)

// sandboxFlags are --sandbox and --sandbox-network.
type sandboxFlags struct {
	mode    string
	network string
}

func (s *sandboxFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.mode, "sandbox", "", "confine bash: workspace (default), read-only, off, or require (refuse to run unconfined)")
	fs.StringVar(&s.network, "sandbox-network", "", "on or off: whether confined commands may use the network (either replaces a network allow-list from settings)")
}

// buildPolicy is the effective sandbox policy for a run in cwd: flags over
// the "sandbox" settings of the settings model over the
// defaults. Settings problems come back as warnings (the bad file's
// sandbox settings are left out); the error is a bad flag or a policy
// that was required but cannot be enforced.
func (a *app) buildPolicy(f sandboxFlags, values *settings.Settings, cwd string) (*sandbox.Policy, []error, error) {
	s, warns := sandbox.LoadSettings(values.Layers("sandbox"), a.home)
	p, err := sandbox.Build(sandbox.Inputs{
		Flags:    sandbox.Flags{Mode: f.mode, Network: f.network},
		Settings: s, Cwd: cwd, Home: a.home, Tmp: os.TempDir(), Getenv: a.getenv, AgentDir: a.agentDir(),
	})
	if err != nil && !errors.Is(err, sandbox.ErrNotEnforced) {
		err = usagef("%v", err)
	}
	return p, warns, err
}

type sandboxCheckJSON struct {
	Mode          sandbox.Mode        `json:"mode"`
	Network       bool                `json:"network"`
	NetworkPolicy string              `json:"networkPolicy"`
	NetworkAllow  []string            `json:"networkAllow,omitempty"`
	Proxy         string              `json:"proxy,omitempty"`
	NetNamespace  bool                `json:"networkNamespace,omitempty"`
	Require       bool                `json:"require"`
	WritableRoots []sandbox.Root      `json:"writableRoots"`
	Protected     []sandbox.Root      `json:"protectedPaths"`
	DenyRead      []sandbox.Root      `json:"denyRead"`
	Devices       []string            `json:"devices"`
	Kernel        sandbox.Enforcement `json:"kernel"`
	Confined      bool                `json:"confined"`
	Enforced      bool                `json:"enforced"`
	SelfTest      string              `json:"selfTest"`
	Notice        string              `json:"notice,omitempty"`
	Settings      []string            `json:"settings"`
	Warnings      []string            `json:"warnings"`
}

func (a *app) cmdSandbox(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(a.stdout, "Usage: pi sandbox check [--json] [--sandbox MODE] [--sandbox-network on|off] [--cwd DIR]\n\nPrint the sandbox policy a run here would use and whether this kernel enforces it.\n")
			return errHelp
		}
		return usagef("usage: pi sandbox check [--json] [--sandbox MODE] [--sandbox-network on|off]")
	}
	fs := pflag.NewFlagSet("sandbox check", pflag.ContinueOnError)
	var c common
	c.register(fs)
	var sf sandboxFlags
	sf.register(fs)
	rest, err := c.parse(fs, args[1:])
	if err != nil {
		return a.helpOr(err, "pi sandbox check [--json] [--sandbox MODE] [--sandbox-network on|off]", fs)
	}
	if len(rest) > 0 {
		return usagef("sandbox check takes no arguments")
	}
	l, err := a.load(&c)
	if err != nil {
		return err
	}
	p, warns, err := a.buildPolicy(sf, l.Values, l.Cwd)
	if err != nil {
		return err
	}
	defer p.Close()
	out := sandboxCheckJSON{
		Mode: p.Mode, Network: p.Network, NetworkPolicy: p.NetworkPolicy(), NetworkAllow: p.NetAllow, Require: p.Require, WritableRoots: p.Roots, Devices: p.Devices,
		Protected: emptyIfNil(p.Protected()), DenyRead: emptyIfNil(p.DenyRead()),
		Kernel: p.Enforcement(), Confined: p.Confined(), Enforced: p.Enforced(), Notice: p.Notice(),
		Settings: l.Settings.Files, Warnings: []string{},
	}
	if out.WritableRoots == nil {
		out.WritableRoots = []sandbox.Root{}
	}
	if out.Settings == nil {
		out.Settings = []string{}
	}
	for _, w := range warns {
		out.Warnings = append(out.Warnings, w.Error())
	}
	out.SelfTest = a.sandboxSelfTest(ctx, p, l.Cwd)
	out.Proxy = p.ProxyAddr() // started by the self-test's command
	out.NetNamespace = p.NetNamespace()
	if c.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "mode\t%s\n", p.Mode)
	net := "on"
	switch {
	case p.NetAllow != nil:
		proxy := "pi's proxy on 127.0.0.1, started with the first command"
		if out.Proxy != "" {
			proxy = "pi's proxy, " + out.Proxy + " for this check"
		}
		net = "allow-list: only these hosts, through " + proxy + " (other hosts, direct connections and UDP refused"
		if p.NetNamespace() {
			net += "; commands in a network namespace of their own)"
		} else {
			net += "; no network namespace here, so the kernel holds commands to the proxy's port number only, at any address)"
		}
	case !p.Network:
		net = "off (IPv4/IPv6 sockets refused)"
	}
	fmt.Fprintf(tw, "network\t%s\n", net)
	for _, h := range p.NetAllow {
		fmt.Fprintf(tw, "  %s\t\n", h)
	}
	if p.Require {
		fmt.Fprintf(tw, "require\tyes (pi refuses to run unconfined)\n")
	}
	switch p.Mode {
	case sandbox.ModeWorkspace:
		fmt.Fprintf(tw, "writable\t\n")
		for _, r := range p.Roots {
			fmt.Fprintf(tw, "  %s\t%s\n", r.Path, r.Reason)
		}
	case sandbox.ModeReadOnly:
		fmt.Fprintf(tw, "writable\tnothing but %s\n", strings.Join(p.Devices, ", "))
	case sandbox.ModeOff:
		fmt.Fprintf(tw, "writable\teverything pi's user may write (sandbox off)\n")
	}
	if len(p.Protected()) > 0 {
		fmt.Fprintf(tw, "read-only\t%s\n", kernelOrTools(p))
		for _, r := range p.Protected() {
			fmt.Fprintf(tw, "  %s\t%s\n", r.Path, r.Reason)
		}
	}
	if len(p.DenyRead()) > 0 {
		fmt.Fprintf(tw, "unreadable\t%s\n", kernelOrTools(p))
		for _, r := range p.DenyRead() {
			fmt.Fprintf(tw, "  %s\t%s\n", r.Path, r.Reason)
		}
	}
	k := p.Enforcement()
	ll := "not available"
	if k.Landlock() {
		ll = fmt.Sprintf("ABI %d", k.LandlockABI)
	}
	sc := "not available"
	if k.Seccomp {
		sc = "available"
	}
	fmt.Fprintf(tw, "landlock\t%s\n", ll)
	fmt.Fprintf(tw, "seccomp\t%s\n", sc)
	fmt.Fprintf(tw, "enforced\t%v\n", p.Enforced())
	fmt.Fprintf(tw, "self-test\t%s\n", out.SelfTest)
	tw.Flush()
	if n := p.Notice(); n != "" {
		fmt.Fprintln(a.stdout, n)
	}
	for _, w := range out.Warnings {
		fmt.Fprintf(a.stderr, "pi: warning: %s\n", w)
	}
	return nil
}

// sandboxSelfTest runs `true` through the confining helper, so the report
// covers what the kernel really allows (a container may refuse seccomp or
// Landlock even where the kernel has them).
func (a *app) sandboxSelfTest(ctx context.Context, p *sandbox.Policy, cwd string) string {
	if !p.Confined() {
		return "skipped (commands run unconfined)"
	}
	exe, err := os.Executable()
	if err != nil {
		return "failed: " + err.Error()
	}
	cmd, err := sandbox.Shell{Policy: p, Exe: exe}.Command(ctx, "true", cwd, nil)
	if err != nil {
		return "failed: " + err.Error()
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("failed: %v %s", err, strings.TrimSpace(string(out)))
	}
	return "ok"
}

func emptyIfNil(r []sandbox.Root) []sandbox.Root {
	if r == nil {
		return []sandbox.Root{}
	}
	return r
}

// kernelOrTools says who enforces the protected paths and the read deny
// list here: the kernel for commands too, or only the file tools.
func kernelOrTools(p *sandbox.Policy) string {
	if p.Confined() && p.Enforcement().MountNS {
		return "(commands and file tools)"
	}
	return "(file tools only: commands cannot be given a mount namespace here)"
}
