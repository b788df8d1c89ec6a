package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// An apiKey or header value in models.json is, as the TypeScript harness
// defines it:
//
//   - "!command": the trimmed standard output of command, run by the shell
//     (sh -c; cmd /C on Windows) with a ten-second limit. Empty output, a
//     failure or a timeout leaves the value unresolved. The output is cached
//     for the life of the Models value.
//   - anything else: a template where "$NAME" and "${NAME}" are environment
//     variables, "$$" is a literal "$" and "$!" a literal "!". A variable
//     that is unset or empty leaves the value unresolved.
//
// pi adds one rule for files written by its earlier versions: a value that
// is nothing but an upper-case variable name (OPENAI_API_KEY) is that
// variable when it is set. The other harness would send the name itself,
// which no service accepts as a key.

// commandTimeout bounds a "!command" value.
const commandTimeout = 10 * time.Second

type valuePart struct {
	literal string
	env     string // set for a variable reference
}

func parseTemplate(s string) []valuePart {
	var parts []valuePart
	lit := func(v string) {
		if v == "" {
			return
		}
		if n := len(parts); n > 0 && parts[n-1].env == "" {
			parts[n-1].literal += v
			return
		}
		parts = append(parts, valuePart{literal: v})
	}
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '$')
		if j < 0 {
			lit(s[i:])
			break
		}
		lit(s[i : i+j])
		i += j
		if i+1 < len(s) && (s[i+1] == '$' || s[i+1] == '!') {
			lit(s[i+1 : i+2])
			i += 2
			continue
		}
		if i+1 < len(s) && s[i+1] == '{' {
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				lit("$")
				i++
				continue
			}
			name := s[i+2 : i+2+end]
			if isEnvName(name, false) {
				parts = append(parts, valuePart{env: name})
			} else {
				lit(s[i : i+3+end])
			}
			i += 3 + end
			continue
		}
		n := envPrefixLen(s[i+1:])
		if n == 0 {
			lit("$")
			i++
			continue
		}
		parts = append(parts, valuePart{env: s[i+1 : i+1+n]})
		i += 1 + n
	}
	return parts
}

// envPrefixLen is the length of the environment variable name at the start
// of s ([A-Za-z_][A-Za-z0-9_]*), 0 when there is none.
func envPrefixLen(s string) int {
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return i
		}
	}
	return len(s)
}

// isEnvName reports whether s is an environment variable name; upper
// restricts it to the conventional upper-case form.
func isEnvName(s string, upper bool) bool {
	if s == "" || envPrefixLen(s) != len(s) {
		return false
	}
	return !upper || strings.ToUpper(s) == s
}

// valueResolver resolves config values against an environment, caching
// command output.
type valueResolver struct {
	env      func(string) string
	commands map[string]string // command → output ("" when it failed)
	// noCommands leaves "!command" values unresolved (fuzzing must never
	// run what it generates).
	noCommands bool
}

// resolve returns the value of v. ok is false when it cannot be resolved;
// then why says which variable or command failed.
func (r *valueResolver) resolve(v string) (val string, ok bool, why string) {
	if strings.HasPrefix(v, "!") {
		out := r.run(v[1:])
		if out == "" {
			return "", false, fmt.Sprintf("the command %q gave no output (or failed)", v[1:])
		}
		return out, true, ""
	}
	if isEnvName(v, true) && !strings.ContainsAny(v, "$") {
		if e := r.env(v); e != "" {
			return e, true, "" // pi's legacy rule, see above
		}
	}
	var b strings.Builder
	var missing []string
	for _, p := range parseTemplate(v) {
		if p.env == "" {
			b.WriteString(p.literal)
			continue
		}
		e := r.env(p.env)
		if e == "" {
			missing = append(missing, p.env)
		}
		b.WriteString(e)
	}
	if len(missing) > 0 {
		return "", false, "environment variable " + strings.Join(missing, ", ") + " is not set"
	}
	return b.String(), true, ""
}

func (r *valueResolver) run(command string) string {
	if out, ok := r.commands[command]; ok || r.noCommands {
		return out
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	out := ""
	if err == nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		out = strings.TrimSpace(stdout.String())
	}
	if r.commands == nil {
		r.commands = map[string]string{}
	}
	r.commands[command] = out
	return out
}
