package sandbox

import (
	"errors"
	"os/exec"
)

// Narrow returns a policy for a long-running program pi starts on the
// user's behalf (an MCP server): it reads what p's commands may read, but
// writes only roots (resolved here; the devices stay writable) and reaches
// the network only when network is set, whatever p allows. A policy in
// mode off stays off: a user who runs bash unconfined runs such programs
// unconfined too. Every other part of p (its enforcement, and any read
// rules it has) carries over unchanged.
func (p *Policy) Narrow(roots []Root, network bool) *Policy {
	n := *p
	if p.Mode == ModeOff {
		return &n
	}
	n.Mode = ModeWorkspace
	// The server's own entry decides its network, on or off: the
	// allow-list is bash's (an MCP server that needs the network usually
	// needs its own service's hosts, which the entry names by allowing it).
	n.Network, n.NetAllow = network, nil
	n.Roots = nil
	for _, r := range roots {
		n.Roots = append(n.Roots, Root{Path: resolve(r.Path), Reason: r.Reason})
	}
	n.Roots = dedupe(n.Roots)
	n.prefixes = nil
	for _, r := range n.Roots {
		n.prefixes = append(n.prefixes, withSep(r.Path))
	}
	return &n
}

// Program returns the command that runs argv (a program and its
// arguments; the program is looked up in PATH) under p: through pi's
// helper when p confines commands, directly otherwise. exe is the pi
// executable, as for [Shell]. The caller sets Dir, Env and pipes; a
// confined command already leads a session (and process group) of its own.
func (p *Policy) Program(exe string, argv []string) (*exec.Cmd, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("sandbox: no program to run")
	}
	if !p.Confined() {
		return exec.Command(argv[0], argv[1:]...), nil
	}
	if exe == "" {
		return nil, errors.New("sandbox: no pi executable to start the confining helper")
	}
	return helperCommand(exe, p.spec(), argv...)
}
