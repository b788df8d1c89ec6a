package provider

import (
	"sort"
	"strings"
)

// minSecretLen is the shortest credential value matched by value: shorter
// literals ("ollama", "none") are placeholders, not secrets.
const minSecretLen = 12

// SecretEnv lists what must not reach the commands pi runs: the names of
// the environment variables that hold provider credentials (every built-in
// provider's key variable, ANTHROPIC_AUTH_TOKEN and ANTHROPIC_OAUTH_TOKEN,
// and every variable models.json's apiKey and header values refer to), and
// the credential values pi knows (auth.json's keys and models.json's
// literal keys), so a key copied into a variable of another name is caught
// too. Both lists are sorted and without duplicates.
func (m *Models) SecretEnv() (names, values []string) {
	seen := map[string]bool{}
	addName := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, b := range builtins() {
		addName(b.keyEnv)
	}
	addName("ANTHROPIC_AUTH_TOKEN")
	addName("ANTHROPIC_OAUTH_TOKEN")
	vals := map[string]bool{}
	addValue := func(v string) {
		if len(v) >= minSecretLen {
			vals[v] = true
		}
	}
	refs := func(raw string) {
		if raw == "" || strings.HasPrefix(raw, "!") {
			return
		}
		if isEnvName(raw, true) {
			addName(raw) // the bare-name form (configvalue.go)
		}
		literal := true
		for _, p := range parseTemplate(raw) {
			if p.env != "" {
				addName(p.env)
				literal = false
			}
		}
		if literal {
			addValue(raw)
		}
	}
	for _, p := range m.Providers {
		refs(p.APIKey)
		for _, v := range p.Headers {
			refs(v)
		}
		for _, mc := range p.Models {
			for _, v := range mc.Headers {
				refs(v)
			}
		}
	}
	for _, k := range m.Stored {
		addValue(k.Key)
	}
	for v := range vals {
		values = append(values, v)
	}
	sort.Strings(names)
	sort.Strings(values)
	return names, values
}
