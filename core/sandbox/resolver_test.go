package sandbox

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The remembering resolver of a policy build must answer exactly what
// resolve answers, for existing and missing paths, through symlinked
// directories, links to links and dangling links, whatever order the
// paths come in.
func TestResolverAgreesWithResolve(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	dir := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	mk("real/home/.config")
	mk("real/proj/.git/hooks")
	mk("other")
	ln(filepath.Join(dir, "real/home"), "home")         // absolute link to a directory
	ln("real/proj", "proj")                             // relative link
	ln("home", "home2")                                 // a link to a link
	ln(filepath.Join(dir, "nowhere"), "real/home/.ssh") // dangling
	ln("../../other", "real/home/.config/gh")           // up and out
	paths := []string{
		"home/.ssh", "home/.ssh/id_rsa", "home/.aws", "home/.aws/credentials", "home2/.config/gh/hosts.yml",
		"home/.config", "proj/.git/hooks/pre-commit", "proj/.git/config", "proj", "missing/a/b", "home2",
		"real/home/.config/gh", "proj/../home/.bashrc", "",
	}
	for _, order := range [][]string{paths, reverse(paths)} {
		rs := resolver{}
		for _, p := range order {
			abs := filepath.Join(dir, p)
			if got, want := rs.resolve(abs), resolve(abs); got != want {
				t.Errorf("%s: resolver %s, resolve %s", p, got, want)
			}
		}
	}
	if got, want := (resolver{}).resolve("rel/x"), resolve("rel/x"); got != want {
		t.Errorf("a relative path: %s, want %s", got, want)
	}
}

func reverse(in []string) []string {
	out := make([]string, len(in))
	for i, s := range in {
		out[len(in)-1-i] = s
	}
	return out
}
