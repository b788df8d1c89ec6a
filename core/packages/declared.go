package packages

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Declared is one entry of a settings file's "packages" list, in the
// established harness's format: a source string, or an object with
// "source" and, per resource kind, a list that narrows what loads ("!glob",
// "+path", "-path"; [] loads none of that kind; absent loads all).
type Declared struct {
	Source string
	// Filters holds the kinds the object form lists.
	Filters map[string][]string
}

// ParseDeclared reads a "packages" value. Entries that are neither a
// string nor an object with a string "source" are reported and skipped.
func ParseDeclared(raw json.RawMessage) ([]Declared, []error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, []error{fmt.Errorf("packages must be a list")}
	}
	var out []Declared
	var errs []error
	for i, it := range items {
		var s string
		if json.Unmarshal(it, &s) == nil {
			out = append(out, Declared{Source: s})
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(it, &obj) != nil || json.Unmarshal(obj["source"], &s) != nil || s == "" {
			errs = append(errs, fmt.Errorf("packages[%d]: want a source string or an object with a \"source\"", i))
			continue
		}
		d := Declared{Source: s, Filters: map[string][]string{}}
		for _, kind := range ResourceKinds {
			v, ok := obj[kind]
			if !ok {
				continue
			}
			var list []string
			if json.Unmarshal(v, &list) != nil {
				errs = append(errs, fmt.Errorf("packages[%d].%s must be a list of strings", i, kind))
				continue
			}
			d.Filters[kind] = list
		}
		out = append(out, d)
	}
	return out, errs
}

// Identity names a package whatever way its source is written: an npm
// package by its name, a git repository by its URL without the ref, a
// local one by its absolute path.
func Identity(src Source) string {
	switch src.Kind {
	case Npm:
		return "npm:" + src.Name
	case Git:
		return "git:" + strings.TrimSuffix(src.URL, ".git")
	}
	return "local:" + src.Path
}

// InstallDir is where a package of the established format is installed,
// as the established harness lays it out under base (the agent dir, or a
// project's .pi): npm packages in base/npm/node_modules/NAME, git
// repositories in base/git/HOST/PATH. A local package is used where it is.
func InstallDir(base string, src Source) (string, error) {
	switch src.Kind {
	case Local:
		return src.Path, nil
	case Npm:
		return filepath.Join(base, "npm", "node_modules", filepath.FromSlash(src.Name)), nil
	case Git:
		host, p, err := gitHostPath(src.URL)
		if err != nil {
			return "", err
		}
		root := filepath.Join(base, "git")
		dir := filepath.Join(root, host, filepath.FromSlash(p))
		if !inside(root, dir) || dir == root {
			return "", fmt.Errorf("git source %s: its path leaves the install folder", src.Spec)
		}
		return dir, nil
	}
	return "", fmt.Errorf("unknown source kind %q", src.Kind)
}

// gitHostPath splits a repository URL into host and path (without .git).
func gitHostPath(u string) (host, p string, err error) {
	if rest, ok := strings.CutPrefix(u, "git@"); ok && !strings.Contains(u, "://") {
		h, path, found := strings.Cut(rest, ":")
		if !found {
			return "", "", fmt.Errorf("git source %s: no path", u)
		}
		host, p = h, path
	} else {
		pu, perr := url.Parse(u)
		if perr != nil {
			return "", "", fmt.Errorf("git source %s: %w", u, perr)
		}
		host, p = pu.Hostname(), pu.Path
		if pu.Scheme == "file" {
			host = "local"
		}
	}
	p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
	if host == "" || p == "" || strings.Contains(host, "..") {
		return "", "", fmt.Errorf("git source %s: cannot tell the host and path", u)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." || seg == "." || seg == "" {
			return "", "", fmt.Errorf("git source %s: bad path", u)
		}
	}
	return host, p, nil
}

// Filter narrows files (of one kind, under the package at root) by a
// settings entry's list: [] keeps none, otherwise "!glob" leaves out,
// "+path" brings back, "-path" leaves out whatever else says.
func Filter(root string, files, patterns []string) []string {
	if patterns == nil {
		return files
	}
	if len(patterns) == 0 {
		return nil
	}
	var includes, overrides []string
	for _, p := range patterns {
		if strings.HasPrefix(p, "!") || strings.HasPrefix(p, "+") || strings.HasPrefix(p, "-") {
			overrides = append(overrides, p)
		} else {
			includes = append(includes, p)
		}
	}
	kept := files
	if len(includes) > 0 {
		kept = nil
		for _, f := range files {
			rel, _ := filepath.Rel(root, f)
			for _, in := range includes {
				if globMatches(filepath.ToSlash(strings.TrimPrefix(in, "./")), f, rel) {
					kept = append(kept, f)
					break
				}
			}
		}
	}
	kept = applyOverrides(root, kept, overrides)
	// "+path" brings back files the includes left out, too.
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		for _, o := range overrides {
			if o[0] == '+' && exactMatches(o[1:], f, rel) && !contains(kept, f) {
				kept = append(kept, f)
			}
		}
	}
	return kept
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
