package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/piwasm/pi/core/sandbox/confine"
)

// HelperArg is the hidden first argument that makes pi act as the
// confining helper: pi HelperArg SPEC -- PROGRAM ARGS...
const HelperArg = confine.HelperArg

// RunHelper is the body of pi's hidden helper command (see [confine.Run]):
// it confines the process with the policy in args and executes the
// command, returning only on failure.
func RunHelper(args []string, stderr io.Writer) int { return confine.Run(args, stderr) }

func (p *Policy) spec() confine.Spec {
	s := confine.Spec{Stamp: confine.BuildStamp(), Devices: p.Devices, Network: p.Network}
	prot, deny := p.Protected(), p.DenyRead()
	if (len(prot) > 0 || len(deny) > 0) && p.mountNS() {
		s.Namespace = true
		for _, r := range prot {
			s.ReadOnly = append(s.ReadOnly, r.Path)
		}
		for _, r := range deny {
			s.Hide = append(s.Hide, r.Path)
		}
	}
	for _, r := range p.Roots {
		s.Write = append(s.Write, r.Path)
		if r.tool != "" {
			s.Create = append(s.Create, confine.CacheDir{Path: r.Path, Tool: r.tool})
		}
	}
	return s
}

// commandSpec is the helper's spec for a bash command, with the
// environment the command needs on top of its own: in allow-list mode it
// starts the proxy (the first time) and points the command at it. It
// fails, and the command must not run, when the allow-list cannot be
// enforced or its proxy cannot start.
func (p *Policy) commandSpec() (confine.Spec, []string, error) {
	sp := p.spec()
	if p.NetAllow == nil {
		return sp, nil, nil
	}
	if err := p.netAllowError(); err != nil {
		return sp, nil, errors.New("sandbox: " + err.Error())
	}
	if p.proxy == nil {
		return sp, nil, errors.New("sandbox: the network allow-list has no proxy (a policy not made by Build)")
	}
	port, env, err := p.proxy.port()
	if err != nil {
		return sp, nil, fmt.Errorf("sandbox: %w; not running the command", err)
	}
	sp.ProxyPort = port
	if h := p.proxy.handOverPath(); h != "" && p.mountNS() {
		// Only the proxy's listener on the namespace's loopback: no
		// other address to reach at the proxy's port (Landlock restricts
		// ports, not addresses).
		sp.NetNS, sp.HandOver = true, h
	}
	// A copy: the caller appends to it.
	return sp, append([]string(nil), env...), nil
}

// NetworkPolicy names the network mode: "on", "off" or "allow-list".
func (p *Policy) NetworkPolicy() string {
	switch {
	case p.NetAllow != nil:
		return "allow-list"
	case p.Network:
		return "on"
	}
	return "off"
}

// NetNamespace reports whether allow-list commands run in a network
// namespace of their own, reaching only pi's proxy (false: held to the
// proxy's port by Landlock alone, at any address).
func (p *Policy) NetNamespace() bool {
	return p.NetAllow != nil && p.Confined() && p.mountNS()
}

// ProxyAddr is the allow-list proxy's address (127.0.0.1:PORT) once a
// command started it, "" before and in other modes.
func (p *Policy) ProxyAddr() string {
	if p.proxy == nil {
		return ""
	}
	return p.proxy.running()
}

// Close stops what the policy started for the run (the allow-list proxy).
// Commands that still run lose their connections.
func (p *Policy) Close() error {
	if p == nil || p.proxy == nil {
		return nil
	}
	return p.proxy.close()
}

// Shell starts bash commands under a policy. Exe is the pi executable
// (os.Executable()), which must call [RunHelper] when its first argument
// is [HelperArg]; the helper built beside it ([HelperName]) runs instead
// when there is one from the same build. Shell is the sandbox's implementation of the bash tool's
// Shell extension point.
type Shell struct {
	Policy *Policy
	Exe    string
	// Bash is the shell to run (settings shellPath); empty means bash on
	// PATH.
	Bash string
}

// Command returns the command that runs script with bash in dir with env
// (nil env means pi's own environment). When the policy confines commands
// it runs pi's helper, which confines itself and then executes bash, so
// everything the script starts, including processes left in the
// background, stays confined. The caller sets pipes and process options.
func (s Shell) Command(_ context.Context, script, dir string, env []string) (*exec.Cmd, error) {
	bash := s.Bash
	if bash == "" {
		var err error
		if bash, err = exec.LookPath("bash"); err != nil {
			return nil, errors.New("bash is not installed or not on PATH")
		}
	}
	// exec.Command, not CommandContext: the bash tool kills the whole
	// process group on cancellation, which killing the helper alone would
	// not do.
	var cmd *exec.Cmd
	if s.Policy == nil || !s.Policy.Confined() {
		if s.Policy != nil {
			if err := s.Policy.netAllowError(); err != nil {
				// Fail closed: never run a command with the network fully
				// on when the user asked for an allow-list.
				return nil, errors.New("sandbox: " + err.Error())
			}
		}
		cmd = exec.Command(bash, "-c", script)
	} else {
		if s.Exe == "" {
			return nil, errors.New("sandbox: no pi executable to start the confining helper")
		}
		sp, extra, err := s.Policy.commandSpec()
		if err != nil {
			return nil, err
		}
		if cmd, err = helperCommand(s.Exe, sp, bash, "-c", script); err != nil {
			return nil, err
		}

		extra = append(extra, s.Policy.cacheEnv...)
		if len(extra) > 0 {
			if env == nil {
				env = os.Environ()
			}
			env = append(env[:len(env):len(env)], extra...)
		}
	}
	cmd.Dir = dir
	cmd.Env = env
	return cmd, nil
}

// helperCommand is the command that starts pi's helper to run argv under
// sp: in a session of its own, killed with pi, and in its own user and
// mount namespace when sp mounts anything: created by the helper itself
// when it is cmd/pi-sandbox with its entry point ([confine.SelfNSArg],
// found out once per run by selfNSWorks), else by pi as it starts it
// (setNamespaces). Every way of starting the helper goes through here, so
// none can forget the namespace (whose mounts would otherwise land in
// pi's own).
func helperCommand(exe string, sp confine.Spec, argv ...string) (*exec.Cmd, error) {
	return helperCommandFor(helperExe(exe), exe, sp, argv...)
}

// helperCommandFor is helperCommand with the helper program chosen: exe
// itself, or the helper beside it.
func helperCommandFor(helper, exe string, sp confine.Spec, argv ...string) (*exec.Cmd, error) {
	if sp.Namespace {
		sp.HostMountNS = hostMountNS()
	}
	if sp.NetNS {
		sp.HostNetNS = hostNetNS()
	}
	var err error
	if sp.Filter, err = compiledFilter(netModeOf(sp)); err != nil {
		return nil, fmt.Errorf("sandbox: cannot build the seccomp filter, not running the command: %w", err)
	}
	arg, ns := HelperArg, sp.Namespace || sp.NetNS
	if ns && helper != exe && selfNSWorks(helper) {
		// The helper creates its namespaces itself, so pi starts it
		// with none: with vfork rather than a full fork of pi.
		arg, ns = confine.SelfNSArg, false
		sp.UID, sp.GID = os.Getuid(), os.Getgid()
	}
	js, err := json.Marshal(sp)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(helper, append([]string{arg, string(js), "--"}, argv...)...)
	detach(cmd)
	if ns {
		setNamespaces(cmd, sp.NetNS)
	}
	return cmd, nil
}

// SpecArg is the hidden first argument that makes pi print, with
// [PrintSpec], the policy its helper gets for a command that may write
// only the directories named after it, with the network on and nothing
// protected (so no namespaces): bench/side.sh starts the helper on its
// own with it (pi HelperArg SPEC -- true), to time the helper alone.
const SpecArg = "__sandbox-spec"

// PrintSpec writes that policy as the helper's SPEC argument.
func PrintSpec(write []string, w io.Writer) error {
	sp := confine.Spec{Stamp: confine.BuildStamp(), Write: write, Devices: []string{"/dev/null"}, Network: true}
	var err error
	if sp.Filter, err = compiledFilter(netModeOf(sp)); err != nil {
		return err
	}
	js, err := json.Marshal(sp)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", js)
	return err
}
