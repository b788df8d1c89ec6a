package packages

import (
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"path/filepath"
	"strings"
)

// Kinds of source.
const (
	Local = "local"
	Git   = "git"
	Npm   = "npm"
)

// Source is a parsed package source.
type Source struct {
	Kind string
	// Spec is the source as the user wrote it (what the lock keeps).
	Spec string
	// Path is a local source's absolute directory.
	Path string
	// URL and Ref are a git source's repository and the ref after "@"
	// ("" = the default branch).
	URL, Ref string
	// Name and Version are an npm source's package and version or range
	// ("" = latest).
	Name, Version string
}

var (
	npmName = lazyre.New(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)
	gitRef  = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`)
	hostish = lazyre.New(`^[A-Za-z0-9.-]+\.[A-Za-z]{2,}/`)
)

// Parse reads a source as the established harness writes them:
// npm:NAME[@VERSION], git:HOST/PATH[@REF] or git:URL[@REF], an
// https:// or ssh:// URL (git), or a local path (./x, ../x, /x, ~/x).
// Relative paths resolve against base; ~ against home.
func Parse(spec, base, home string) (Source, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return Source{}, fmt.Errorf("empty package source")
	}
	if strings.ContainsAny(s, "\x00\n\r") {
		return Source{}, fmt.Errorf("package source %q has control characters", spec)
	}
	switch {
	case strings.HasPrefix(s, "npm:"):
		rest := strings.TrimPrefix(s, "npm:")
		name, version := rest, ""
		if i := strings.LastIndexByte(rest, '@'); i > 0 {
			name, version = rest[:i], rest[i+1:]
			if version == "" {
				return Source{}, fmt.Errorf("npm source %q: empty version after @", spec)
			}
		}
		if !npmName().MatchString(name) || len(name) > 214 {
			return Source{}, fmt.Errorf("npm source %q: %q is not an npm package name", spec, name)
		}
		if strings.HasPrefix(version, "-") || strings.ContainsAny(version, " \t") {
			return Source{}, fmt.Errorf("npm source %q: bad version %q", spec, version)
		}
		return Source{Kind: Npm, Spec: s, Name: name, Version: version}, nil
	case strings.HasPrefix(s, "git:"), strings.HasPrefix(s, "https://"), strings.HasPrefix(s, "http://"), strings.HasPrefix(s, "ssh://"), strings.HasPrefix(s, "file://"):
		rest := strings.TrimPrefix(s, "git:")
		url, ref := rest, ""
		// The ref is after the last "@" that follows the last "/" (user@host
		// in ssh URLs comes before the path).
		if slash := strings.LastIndexByte(rest, '/'); slash >= 0 {
			if at := strings.LastIndexByte(rest[slash:], '@'); at >= 0 {
				url, ref = rest[:slash+at], rest[slash+at+1:]
				if ref == "" || !gitRef().MatchString(ref) || strings.Contains(ref, "..") {
					return Source{}, fmt.Errorf("git source %q: bad ref %q", spec, ref)
				}
			}
		}
		if strings.HasPrefix(url, "-") || url == "" {
			return Source{}, fmt.Errorf("git source %q: no repository", spec)
		}
		if !strings.Contains(url, "://") && !strings.HasPrefix(url, "git@") {
			if !hostish().MatchString(url) {
				return Source{}, fmt.Errorf("git source %q: write it as git:HOST/OWNER/REPO or a URL", spec)
			}
			url = "https://" + url
		}
		return Source{Kind: Git, Spec: s, URL: url, Ref: ref}, nil
	case strings.HasPrefix(s, "~/") || s == "~":
		return Source{Kind: Local, Spec: s, Path: filepath.Join(home, strings.TrimPrefix(s, "~"))}, nil
	case filepath.IsAbs(s), strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"), s == ".", s == "..":
		p := s
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		return Source{Kind: Local, Spec: s, Path: filepath.Clean(p)}, nil
	}
	return Source{}, fmt.Errorf("package source %q: write npm:NAME[@VERSION], git:HOST/OWNER/REPO[@REF], a URL, or a path starting with ./, ../, / or ~/", spec)
}
