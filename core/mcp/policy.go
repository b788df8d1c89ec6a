package mcp

import (
	"path/filepath"

	"github.com/piwasm/pi/core/sandbox"
)

// StateDir is a stdio server's own directory under the agent dir: the one
// place besides the temp dir it may write by default.
func StateDir(agentDir, server string) string {
	return filepath.Join(agentDir, "mcp", server)
}

// ServerPolicy is the sandbox policy a stdio server runs under: it reads
// what bash may read (base's read rules), writes only its state directory,
// the temp dir and the entry's own sandbox.writableRoots, and reaches the
// network only when the entry's sandbox.network says so. A base in mode
// off leaves the server unconfined, as it leaves bash.
func ServerPolicy(base *sandbox.Policy, s *Server, agentDir, tmp string) *sandbox.Policy {
	roots := []sandbox.Root{{Path: StateDir(agentDir, s.Name), Reason: "the server's state directory"}}
	if tmp != "" {
		roots = append(roots, sandbox.Root{Path: tmp, Reason: "temp dir"})
	}
	for _, r := range s.Sandbox.WritableRoots {
		roots = append(roots, sandbox.Root{Path: r, Reason: "mcp.json: " + s.Source})
	}
	return base.Narrow(roots, s.Sandbox.Network)
}
