package permission

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/tool"
)

// requestFor turns a prepared tool call into the Request the rules see:
// the script for bash; for the file tools the path argument made absolute
// the way the tools do it (a leading "@" dropped, "~" expanded, relative
// to paths.Cwd) and resolved (symlinks followed; for a path that does not
// exist yet, its nearest existing parent). grep, find and ls without a
// path are checked against the working directory.
func requestFor(call tool.Call, paths Paths) Request {
	name := strings.ToLower(call.Name)
	req := Request{Tool: name}
	switch {
	case name == "bash":
		req.Command, _ = call.Args["command"].(string)
	case pathTools[name]:
		p, _ := call.Args["path"].(string)
		req.Path = resolvePath(p, paths)
	case strings.HasPrefix(name, abi.MCPToolPrefix):
		req.Args = ArgsJSON(call.Args)
	}
	return req
}

// ArgsJSON is an MCP tool call's arguments as its rules match them:
// compact JSON with sorted keys, without HTML escaping.
func ArgsJSON(args map[string]any) string {
	if args == nil {
		return "{}"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(args) != nil {
		return "{}"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func resolvePath(p string, paths Paths) string {
	p = strings.TrimPrefix(p, "@")
	switch {
	case p == "~":
		p = paths.Home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(paths.Home, p[2:])
	}
	if p == "" {
		p = "."
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(paths.Cwd, p)
	}
	p = filepath.Clean(p)
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
