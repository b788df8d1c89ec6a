package resources

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Filter is one settings file's override entries for a resource list, as
// the established harness reads them: "!glob" leaves out what matches,
// "+path" brings back an exact path the globs left out, "-path" leaves out
// an exact path whatever else says. Patterns and paths are relative to
// BaseDir, the settings file's directory (the agent dir, or the project's
// .pi), or absolute; a glob may also match the file name, and for a skill
// its directory. A filter applies to the resources under BaseDir.
type Filter struct {
	BaseDir  string
	Patterns []string
}

// isOverride reports whether a resource list entry is a filter entry
// rather than a path.
func isOverride(entry string) bool {
	return strings.HasPrefix(entry, "!") || strings.HasPrefix(entry, "+") || strings.HasPrefix(entry, "-")
}

// enabled applies the filters whose BaseDir holds path.
func enabled(path string, filters []Filter) bool {
	on := true
	for _, f := range filters {
		rel, err := filepath.Rel(f.BaseDir, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		var excl, incl, forceOut []string
		for _, p := range f.Patterns {
			switch p[0] {
			case '!':
				excl = append(excl, p[1:])
			case '+':
				incl = append(incl, p[1:])
			case '-':
				forceOut = append(forceOut, p[1:])
			}
		}
		if matchesGlob(path, rel, excl) {
			on = false
		}
		if matchesExact(path, rel, f.BaseDir, incl) {
			on = true
		}
		if matchesExact(path, rel, f.BaseDir, forceOut) {
			on = false
		}
	}
	return on
}

// candidates are the names a pattern is tried against: the path relative
// to the base, the file name and the absolute path; for a SKILL.md also
// its directory in those three forms.
func candidates(path, rel string) []string {
	out := []string{filepath.ToSlash(rel), filepath.Base(path), filepath.ToSlash(path)}
	if filepath.Base(path) == "SKILL.md" {
		dir := filepath.Dir(path)
		out = append(out, filepath.ToSlash(filepath.Dir(rel)), filepath.Base(dir), filepath.ToSlash(dir))
	}
	return out
}

func matchesGlob(path, rel string, patterns []string) bool {
	for _, p := range patterns {
		p = filepath.ToSlash(strings.TrimPrefix(p, "./"))
		for _, c := range candidates(path, rel) {
			if ok, _ := doublestar.Match(p, c); ok {
				return true
			}
		}
	}
	return false
}

func matchesExact(path, rel, base string, patterns []string) bool {
	for _, p := range patterns {
		p = filepath.ToSlash(strings.TrimPrefix(strings.TrimSuffix(p, "/"), "./"))
		cands := []string{filepath.ToSlash(rel), filepath.ToSlash(path)}
		if filepath.Base(path) == "SKILL.md" {
			cands = append(cands, filepath.ToSlash(filepath.Dir(rel)), filepath.ToSlash(filepath.Dir(path)))
		}
		for _, c := range cands {
			if p == c {
				return true
			}
		}
	}
	return false
}
