package packages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Resource kinds of a package of the established format, in the order its
// package.json lists them under "pi" and its conventional folders are named.
var ResourceKinds = []string{"extensions", "skills", "prompts", "themes"}

// Resources are the files a package of the established format offers:
// extension entry files (.ts/.js), skill files (SKILL.md, or loose .md at
// the top of a skills folder), prompt templates (.md) and themes (.json).
// Paths are absolute.
type Resources struct {
	Extensions []string `json:"extensions"`
	Skills     []string `json:"skills"`
	Prompts    []string `json:"prompts"`
	Themes     []string `json:"themes"`
}

// Of returns the list of one kind.
func (r *Resources) Of(kind string) *[]string {
	switch kind {
	case "extensions":
		return &r.Extensions
	case "skills":
		return &r.Skills
	case "prompts":
		return &r.Prompts
	case "themes":
		return &r.Themes
	}
	return nil
}

// Empty reports whether the package offers nothing.
func (r Resources) Empty() bool {
	return len(r.Extensions)+len(r.Skills)+len(r.Prompts)+len(r.Themes) == 0
}

// Manifest is the "pi" object of a package.json: for each resource kind
// the paths, globs and "!glob", "+path", "-path" entries that select it
// (nil: the kind is not listed).
type Manifest struct {
	Name, Version string
	// Lists holds the kinds that are listed; a package whose "pi" object
	// lists none is read from its conventional folders.
	Lists map[string][]string
	// Dependencies are the package's runtime dependencies.
	Dependencies map[string]string
}

// maxPackageJSON bounds the package.json read.
const maxPackageJSON = 1 << 20

// ReadManifest reads root/package.json. ok is false when there is none.
// A package.json that is not JSON, or a "pi" list that is not a list of
// strings, is an error naming the file and the key.
func ReadManifest(root string) (m Manifest, ok bool, err error) {
	p := filepath.Join(root, "package.json")
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, false, nil
	}
	if err != nil {
		return Manifest{}, false, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxPackageJSON {
		return Manifest{}, false, fmt.Errorf("%s: not a regular file of at most 1 MiB", p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return Manifest{}, false, err
	}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	var raw struct {
		Name         string                     `json:"name"`
		Version      string                     `json:"version"`
		Dependencies map[string]string          `json:"dependencies"`
		Pi           map[string]json.RawMessage `json:"pi"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return Manifest{}, false, fmt.Errorf("%s: %w", p, err)
	}
	m = Manifest{Name: raw.Name, Version: raw.Version, Dependencies: raw.Dependencies, Lists: map[string][]string{}}
	for _, kind := range ResourceKinds {
		v, listed := raw.Pi[kind]
		if !listed {
			continue
		}
		var entries []string
		if err := json.Unmarshal(v, &entries); err != nil {
			return Manifest{}, false, fmt.Errorf("%s: pi.%s must be a list of paths and globs", p, kind)
		}
		m.Lists[kind] = entries
	}
	return m, true, nil
}

// HasPackageJSON reports whether dir holds a package.json (a package of
// the established format, or an npm package that is not one).
func HasPackageJSON(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "package.json"))
	return err == nil && fi.Mode().IsRegular()
}

// ReadResources lists what the package at root offers, by the established
// harness's rules: the kinds its package.json lists under "pi" (paths and
// globs relative to root; a folder contributes its files of that kind;
// "!glob" leaves out, "+path" brings back, "-path" leaves out whatever
// else says), or, when "pi" lists none, its extensions/, skills/,
// prompts/ and themes/ folders. Dot-files and node_modules are passed over
// inside folders; globs do not reach dot paths.
func ReadResources(root string) (Resources, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return Resources{}, err
	}
	m, _, err := ReadManifest(root)
	if err != nil {
		return Resources{}, err
	}
	var r Resources
	if len(m.Lists) > 0 {
		for kind, entries := range m.Lists {
			files, err := manifestFiles(root, kind, entries)
			if err != nil {
				return Resources{}, err
			}
			*r.Of(kind) = files
		}
		return r, nil
	}
	for _, kind := range ResourceKinds {
		dir := filepath.Join(root, kind)
		if isDir(dir) {
			*r.Of(kind) = folderFiles(dir, kind)
		}
	}
	return r, nil
}

func manifestFiles(root, kind string, entries []string) ([]string, error) {
	var paths, overrides []string
	for _, e := range entries {
		switch {
		case e == "":
			continue
		case strings.HasPrefix(e, "!"), strings.HasPrefix(e, "+"), strings.HasPrefix(e, "-"):
			overrides = append(overrides, e)
		case strings.ContainsAny(e, "*?"):
			matches, err := doublestar.Glob(os.DirFS(root), filepath.ToSlash(strings.TrimPrefix(e, "./")))
			if err != nil {
				return nil, fmt.Errorf("package.json: pi.%s: bad glob %q: %w", kind, e, err)
			}
			sort.Strings(matches)
			for _, mt := range matches {
				if !hasDotSegment(mt) {
					paths = append(paths, filepath.Join(root, filepath.FromSlash(mt)))
				}
			}
		default:
			p := filepath.Clean(filepath.Join(root, filepath.FromSlash(e)))
			if !inside(root, p) {
				return nil, fmt.Errorf("package.json: pi.%s: %q is outside the package", kind, e)
			}
			paths = append(paths, p)
		}
	}
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			continue
		case fi.Mode().IsRegular():
			files = append(files, p)
		case fi.IsDir():
			files = append(files, folderFiles(p, kind)...)
		}
	}
	return applyOverrides(root, files, overrides), nil
}

func hasDotSegment(rel string) bool {
	for _, s := range strings.Split(rel, "/") {
		if strings.HasPrefix(s, ".") && s != "." && s != ".." {
			return true
		}
	}
	return false
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// applyOverrides applies "!glob" (leave out what matches), then "+path"
// (bring back an exact path), then "-path" (leave out an exact path).
func applyOverrides(root string, files, overrides []string) []string {
	if len(overrides) == 0 {
		return files
	}
	var out []string
	for _, f := range files {
		on := true
		rel, _ := filepath.Rel(root, f)
		for _, o := range overrides {
			pat := filepath.ToSlash(strings.TrimPrefix(o[1:], "./"))
			switch o[0] {
			case '!':
				if globMatches(pat, f, rel) {
					on = false
				}
			}
		}
		for _, o := range overrides {
			if o[0] == '+' && exactMatches(o[1:], f, rel) {
				on = true
			}
		}
		for _, o := range overrides {
			if o[0] == '-' && exactMatches(o[1:], f, rel) {
				on = false
			}
		}
		if on {
			out = append(out, f)
		}
	}
	return out
}

// globMatches tries pattern against the path relative to the package, the
// file name and the absolute path; for a SKILL.md also against its folder.
func globMatches(pattern, path, rel string) bool {
	cands := []string{filepath.ToSlash(rel), filepath.Base(path), filepath.ToSlash(path)}
	if filepath.Base(path) == "SKILL.md" {
		dir := filepath.Dir(path)
		cands = append(cands, filepath.ToSlash(filepath.Dir(rel)), filepath.Base(dir), filepath.ToSlash(dir))
	}
	for _, c := range cands {
		if ok, _ := doublestar.Match(pattern, c); ok {
			return true
		}
	}
	return false
}

func exactMatches(p, path, rel string) bool {
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
	return false
}

// folderFiles lists the files of one kind in dir.
func folderFiles(dir, kind string) []string {
	switch kind {
	case "extensions":
		return extensionEntries(dir)
	case "skills":
		return skillFiles(dir, dir)
	case "prompts":
		return walkFiles(dir, ".md")
	case "themes":
		return walkFiles(dir, ".json")
	}
	return nil
}

// visible lists dir's entries without dot-files and node_modules, links
// followed, in name order.
func visible(dir string) []fs.FileInfo {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []fs.FileInfo
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.Name() == "node_modules" {
			continue
		}
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		out = append(out, fi)
	}
	return out
}

func walkFiles(dir, ext string) []string {
	var out []string
	for _, fi := range visible(dir) {
		p := filepath.Join(dir, fi.Name())
		switch {
		case fi.IsDir():
			out = append(out, walkFiles(p, ext)...)
		case fi.Mode().IsRegular() && strings.HasSuffix(fi.Name(), ext):
			out = append(out, p)
		}
	}
	return out
}

// skillFiles: a folder holding SKILL.md is one skill; loose .md files
// count only at the top of the skills folder.
func skillFiles(dir, top string) []string {
	if fi, err := os.Stat(filepath.Join(dir, "SKILL.md")); err == nil && fi.Mode().IsRegular() {
		return []string{filepath.Join(dir, "SKILL.md")}
	}
	var out []string
	for _, fi := range visible(dir) {
		p := filepath.Join(dir, fi.Name())
		switch {
		case fi.IsDir():
			out = append(out, skillFiles(p, top)...)
		case fi.Mode().IsRegular() && strings.HasSuffix(fi.Name(), ".md") && dir == top:
			out = append(out, p)
		}
	}
	return out
}

// extensionEntries: a folder whose package.json lists extensions, or that
// holds index.ts/index.js, is one extension; otherwise each .ts/.js file
// at its top and each such subfolder.
func extensionEntries(dir string) []string {
	if e := folderEntry(dir); e != nil {
		return e
	}
	var out []string
	for _, fi := range visible(dir) {
		p := filepath.Join(dir, fi.Name())
		switch {
		case fi.Mode().IsRegular() && (strings.HasSuffix(fi.Name(), ".ts") || strings.HasSuffix(fi.Name(), ".js")):
			out = append(out, p)
		case fi.IsDir():
			out = append(out, folderEntry(p)...)
		}
	}
	return out
}

func folderEntry(dir string) []string {
	if m, ok, err := ReadManifest(dir); ok && err == nil && len(m.Lists["extensions"]) > 0 {
		var out []string
		for _, e := range m.Lists["extensions"] {
			p := filepath.Join(dir, filepath.FromSlash(e))
			if _, err := os.Stat(p); err == nil && inside(dir, p) {
				out = append(out, p)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, name := range []string{"index.ts", "index.js"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
			return []string{filepath.Join(dir, name)}
		}
	}
	return nil
}
