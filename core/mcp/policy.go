package mcp

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/sandbox"
)

// StateDir is a stdio server's own directory under the agent dir: the one
// place besides the temp dir it may write by default.
func StateDir(agentDir, server string) string {
	return filepath.Join(agentDir, "mcp", server)
}

// ServerPolicy is the sandbox policy a stdio server runs under: it reads
// what bash may read (base's read rules), writes only its state directory,
// its temp dir tmp (see [ServerTemp]) and the entry's own sandbox.writableRoots, and reaches the
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

// ServerTemp is the temp dir a stdio server may write: the shared one,
// tmp, unless the project lies inside it, where a grant of tmp would be a
// grant of the project, which servers never write unless their entry says
// so. There it is a directory of the server's own, created inside tmp
// (private true: the caller points TMPDIR at it and removes it when the
// server stops).
func ServerTemp(tmp, project, server string) (dir string, private bool, err error) {
	if !ProjectInTemp(tmp, project) {
		return tmp, false, nil
	}
	dir, err = os.MkdirTemp(tmp, "pi-mcp-"+server+"-")
	return dir, err == nil, err
}

// ProjectInTemp reports whether the project lies inside the temp dir tmp
// (symbolic links resolved), where servers get a temp dir of their own.
func ProjectInTemp(tmp, project string) bool {
	if tmp == "" || project == "" {
		return false
	}
	t, p := realPath(tmp), realPath(project)
	return p == t || strings.HasPrefix(p, strings.TrimSuffix(t, string(filepath.Separator))+string(filepath.Separator))
}

func realPath(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
