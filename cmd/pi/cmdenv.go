package main

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/piwasm/pi/core/auth"
	"github.com/piwasm/pi/core/provider"
)

// commandEnviron returns the environment the bash tool starts commands
// from: pi's own as keyEnviron filters it, plus the markers that tell a
// program an agent runs it (AI_AGENT=pi, PI_CODING_AGENT=true and the
// current thinking level as PI_REASONING_LEVEL), as the established
// harness sets them.
func (a *app) commandEnviron(agentDir string, pass []string, level func() string) func() []string {
	filtered := a.keyEnviron(agentDir, pass)
	return func() []string {
		out := append(filtered(), "AI_AGENT=pi", "PI_CODING_AGENT=true")
		if l := level(); l != "" {
			out = append(out, "PI_REASONING_LEVEL="+l)
		}
		return out
	}
}

// keyEnviron returns pi's environment without the provider credentials
// (the variables models.json and the built-in providers read keys from,
// and any variable holding a key pi knows from auth.json or models.json)
// unless settings' sandbox.passEnv names them. It is what every program pi
// starts for others gets: bash's commands and MCP stdio servers. A key the
// program could read from its own environment would leave with the first
// connection it makes.
func (a *app) keyEnviron(agentDir string, pass []string) func() []string {
	// What to leave out is worked out when the first program starts, not
	// when pi does: reading models.json and auth.json again and listing
	// their secrets was ~1.5% of the CPU of a `pi -p` run that starts no
	// command.
	var (
		once                 sync.Once
		drop, secret, passed map[string]bool
	)
	filters := func() { drop, secret, passed = a.environFilters(agentDir, pass) }
	return func() []string {
		once.Do(filters)
		env := os.Environ()
		out := make([]string, 0, len(env)+3)
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			if (drop[k] || secret[v]) && !passed[k] {
				continue
			}
			out = append(out, kv)
		}
		return out
	}
}

// environFilters returns the variables commandEnviron leaves out of a
// command's environment (by name, and by value: any variable holding a
// secret), and those the user lets through (sandbox.passEnv) whatever
// they hold.
func (a *app) environFilters(agentDir string, pass []string) (drop, secret, passed map[string]bool) {
	m, err := provider.LoadModels(filepath.Join(agentDir, "models.json"), a.getenv)
	if err != nil {
		// models.json was read once already for the route; if it cannot be
		// read now, at least the built-in providers' variables go.
		m = &provider.Models{}
	}
	// auth.json's credentials as stored (no refresh: nothing here may
	// reach the network), and the variables it sets per provider.
	var authNames []string
	if st, err := auth.Load(filepath.Join(agentDir, auth.FileName)); err == nil {
		m.Stored = map[string]provider.StoredKey{}
		for _, p := range st.Providers() {
			c, _ := st.Get(p)
			for i, v := range []string{c.Key, c.Access, c.Refresh} {
				m.Stored[p+"#"+string(rune('0'+i))] = provider.StoredKey{Key: v}
			}
			for k, v := range c.Env {
				authNames = append(authNames, k)
				m.Stored[p+"$"+k] = provider.StoredKey{Key: v}
			}
		}
	}
	names, values := m.SecretEnv()
	names = append(names, authNames...)
	drop = map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	secret = map[string]bool{}
	for _, v := range values {
		secret[v] = true
	}
	for _, n := range pass {
		delete(drop, n)
	}
	passed = map[string]bool{}
	for _, n := range pass {
		passed[n] = true
	}
	return drop, secret, passed
}
