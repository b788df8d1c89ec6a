package mcp

import (
	"context"
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"os/exec"
	"strings"
	"time"
)

var varRef = lazyre.New(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// resolveValue expands an env or header value as the established harness
// does: a value starting with '!' is a command (run with sh -c, its
// output trimmed) and must be the whole value; otherwise ${NAME} is the
// environment variable NAME, and an unset one is an error rather than an
// empty credential sent to a server. what names the value in errors.
func resolveValue(ctx context.Context, v, what string, getenv func(string) string, dir string) (string, error) {
	if cmd, ok := strings.CutPrefix(v, "!"); ok {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, "sh", "-c", cmd)
		c.Dir = dir
		out, err := c.Output()
		if err != nil {
			return "", fmt.Errorf("%s: the command %q failed: %v", what, cmd, err)
		}
		return strings.TrimRight(string(out), "\r\n"), nil
	}
	var missing []string
	out := varRef().ReplaceAllStringFunc(v, func(m string) string {
		name := m[2 : len(m)-1]
		val := getenv(name)
		if val == "" {
			missing = append(missing, name)
		}
		return val
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("%s: the environment variable %s is not set", what, strings.Join(missing, ", "))
	}
	return out, nil
}
