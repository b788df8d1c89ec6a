package session

import (
	"errors"
	"fmt"
	"github.com/piwasm/pi/internal/lazyre"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LooksLikePath reports whether a --session or --fork argument names a
// file rather than a session id, as the established harness tells them
// apart: a path separator or a .jsonl ending.
func LooksLikePath(arg string) bool {
	return strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl")
}

// validID is the established harness's rule for session ids given on the
// command line.
var validID = lazyre.New(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// CheckID says what is wrong with a session id chosen by the user.
func CheckID(id string) error {
	if !validID().MatchString(id) {
		return errors.New("session id must be non-empty, contain only letters, digits, '-', '_' and '.', and start and end with a letter or digit")
	}
	return nil
}

// Found is a session located by id.
type Found struct {
	Path   string
	Header Header
	// Elsewhere: the session belongs to another working directory.
	Elsewhere bool
}

// FindByID finds the session whose id is arg, or starts with it: among
// cwd's sessions in dir first (an exact id before a prefix, newest first),
// then among every directory's. ok is false when none matches.
func FindByID(dir, cwd, arg string) (Found, bool) {
	if arg == "" {
		return Found{}, false
	}
	local := headersIn(dir, cwd)
	if f, ok := match(local, arg); ok {
		return f, true
	}
	var all []Found
	for _, d := range everyDir(dir) {
		all = append(all, headersIn(d, "")...)
	}
	sortNewest(all)
	f, ok := match(all, arg)
	if ok && filepath.Clean(f.Header.Cwd) != filepath.Clean(cwd) {
		f.Elsewhere = true
	}
	return f, ok
}

// everyDir lists the directories holding every working directory's
// sessions: in the default layout (Dir: one "--slug--" folder per working
// directory) the folders beside dir; a sessionDir of its own keeps them
// all in dir.
func everyDir(dir string) []string {
	base := filepath.Base(dir)
	if len(base) > 4 && strings.HasPrefix(base, "--") && strings.HasSuffix(base, "--") {
		dirs, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "*"))
		return dirs
	}
	return []string{dir}
}

// FindExact finds cwd's session in dir with exactly this id.
func FindExact(dir, cwd, id string) (Found, bool) {
	for _, f := range headersIn(dir, cwd) {
		if f.Header.ID == id {
			return f, true
		}
	}
	return Found{}, false
}

func match(list []Found, arg string) (Found, bool) {
	for _, f := range list {
		if f.Header.ID == arg {
			return f, true
		}
	}
	for _, f := range list {
		if strings.HasPrefix(f.Header.ID, arg) {
			return f, true
		}
	}
	return Found{}, false
}

// headersIn reads the headers of the session files in dir, newest first;
// with cwd set, only sessions of that directory.
func headersIn(dir, cwd string) []Found {
	names, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	var out []Found
	for _, p := range names {
		if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		h, err := readHeader(p)
		if err != nil || (cwd != "" && filepath.Clean(h.Cwd) != filepath.Clean(cwd)) {
			continue
		}
		out = append(out, Found{Path: p, Header: h})
	}
	sortNewest(out)
	return out
}

// sortNewest orders by file name (a UTC timestamp first), newest first.
func sortNewest(list []Found) {
	sort.SliceStable(list, func(i, j int) bool { return filepath.Base(list[i].Path) > filepath.Base(list[j].Path) })
}

// ErrNotFound is a session id that matches nothing.
func ErrNotFound(arg string) error {
	return fmt.Errorf("No session found matching '%s'", arg)
}
