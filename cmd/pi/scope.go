package main

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi/core/provider"
)

// modelScope is the models Ctrl+P and RPC cycle_model go through: --models,
// else the enabledModels setting; nil when neither scopes them.
func (a *app) modelScope(ls *liveSession, r *runFlags) ([]string, error) {
	patterns := splitPatterns(r.models)
	if len(patterns) == 0 && ls.world.loaded.Values != nil {
		patterns = ls.world.loaded.Values.Strings("enabledModels")
	}
	if len(patterns) == 0 {
		return nil, nil
	}
	m, err := provider.LoadModels(filepath.Join(ls.world.loaded.AgentDir, "models.json"), a.getenv)
	if err != nil {
		return nil, err
	}
	scope, _ := scopeModels(patterns, m.Specs())
	return scope, nil
}

// scopeModels resolves --models (and enabledModels) patterns against the
// configured models ("provider/id"), in pattern order and without
// duplicates, as the established harness scopes them: a pattern is a
// case-insensitive glob when it has *, ? or [, else an exact provider/id
// or id, else a fuzzy (substring) match on either; a ":level" suffix pins
// nothing here (the level applies when the model is chosen). Patterns
// that match nothing are returned apart so they can be reported.
func scopeModels(patterns []string, specs []string) (scope, unmatched []string) {
	seen := map[string]bool{}
	add := func(s string) bool {
		if seen[s] {
			return true
		}
		seen[s] = true
		scope = append(scope, s)
		return true
	}
	for _, raw := range patterns {
		p := strings.ToLower(strings.TrimSpace(raw))
		if p == "" {
			continue
		}
		if i := strings.LastIndexByte(p, ':'); i > 0 && !strings.Contains(p[i:], "/") {
			p = p[:i]
		}
		found := false
		if strings.ContainsAny(p, "*?[") {
			for _, s := range specs {
				ls := strings.ToLower(s)
				_, id, _ := strings.Cut(ls, "/")
				if ok, _ := path.Match(p, ls); ok {
					found = add(s)
				} else if ok, _ := path.Match(p, id); ok {
					found = add(s)
				}
			}
		} else {
			for _, s := range specs {
				ls := strings.ToLower(s)
				_, id, _ := strings.Cut(ls, "/")
				if ls == p || id == p {
					found = add(s)
				}
			}
			if !found {
				for _, s := range specs {
					if strings.Contains(strings.ToLower(s), p) {
						found = add(s)
					}
				}
			}
		}
		if !found {
			unmatched = append(unmatched, raw)
		}
	}
	return scope, unmatched
}

// splitPatterns splits a comma-separated --models value.
func splitPatterns(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
