package mcp

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

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
	out := expandVars(v, func(name string) string {
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

// expandVars replaces each ${NAME} in s, NAME a letter or '_' followed by
// letters, digits and '_', with value(NAME), leftmost first, as the
// regular expression \$\{([A-Za-z_][A-Za-z0-9_]*)\} would; anything else
// stays as written. By hand rather than a regexp compiled on first use or
// at start-up: it is a dozen lines.
func expandVars(s string, value func(name string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			if b.Len() == 0 {
				return s
			}
			b.WriteString(s)
			return b.String()
		}
		n := 0
		for i+2+n < len(s) && isNameByte(s[i+2+n], n == 0) {
			n++
		}
		if n == 0 || i+2+n >= len(s) || s[i+2+n] != '}' {
			// Not a reference here; one may start at the next byte.
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(value(s[i+2 : i+2+n]))
		s = s[i+3+n:]
	}
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || !first && '0' <= c && c <= '9'
}
