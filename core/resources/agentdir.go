package resources

import (
	"os"
	"path/filepath"
	"strings"
)

// agentDirEnv is the environment variable that overrides the agent dir.
const agentDirEnv = "PI_CODING_AGENT_DIR"

// AgentDir returns the user-level agent directory: the value of
// $PI_CODING_AGENT_DIR when getenv returns a non-empty one (with a leading
// `~` expanded against home), else home/.pi/agent. getenv may be nil, and is
// typically [os.Getenv]; home is typically the result of
// [os.UserHomeDir]. Relative results are returned as given.
func AgentDir(getenv func(string) string, home string) string {
	if getenv != nil {
		if v := strings.TrimSpace(getenv(agentDirEnv)); v != "" {
			return ExpandHome(v, home)
		}
	}
	return filepath.Join(home, ".pi", "agent")
}

// ProjectDir returns the project-local resource directory, cwd/.pi.
func ProjectDir(cwd string) string { return filepath.Join(cwd, ".pi") }

// ExpandHome replaces a leading `~` (alone, or followed by a path separator)
// with home. Other paths, including `~user`, are returned unchanged, as is
// every path when home is empty.
func ExpandHome(path, home string) string {
	if home == "" || !strings.HasPrefix(path, "~") {
		return path
	}
	if path == "~" {
		return home
	}
	if path[1] == '/' || path[1] == filepath.Separator {
		return filepath.Join(home, path[2:])
	}
	return path
}

// resolvePath expands `~` and makes path absolute against base.
func resolvePath(path, base, home string) string {
	path = ExpandHome(path, home)
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	return filepath.Clean(path)
}

// isRegularFile reports whether path exists and is (or links to) a regular
// file.
func isRegularFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// isDir reports whether path exists and is (or links to) a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// exists reports whether anything is at path.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// readText reads a file as text, stripping a leading byte order mark. The
// file must be a regular file of at most [defaultMaxPromptFileBytes]: a
// path from configuration or a repository may name /dev/zero or a FIFO.
func readText(path string) (string, error) {
	return readTextMax(path, defaultMaxPromptFileBytes)
}
