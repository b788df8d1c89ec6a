//go:build !windows

package builtin

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every file tool asks Recheck about the path it resolved itself, with its
// own name, before touching it; Visit about each entry below it.
func TestRecheckAndVisitSeeResolvedPaths(t *testing.T) {
	env, dir := newEnv(t)
	files(t, dir, map[string]string{"real/secret.txt": "s3cret\n", "real/ok.txt": "fine\n"})
	if err := os.Symlink(filepath.Join(dir, "real", "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "real", "secret.txt")
	var asked []string
	env.Recheck = func(tool, p string) error {
		asked = append(asked, tool+" "+p)
		if p == target {
			return errors.New("refused by test rule")
		}
		return nil
	}
	env.Visit = func(tool, p string) error {
		if p == target {
			return errors.New("refused")
		}
		return nil
	}
	for _, c := range []struct{ tool, args string }{
		{"read", `{"path":"link.txt"}`},
		{"write", `{"path":"link.txt","content":"x"}`},
		{"edit", `{"path":"link.txt","edits":[{"oldText":"s3cret","newText":"x"}]}`},
	} {
		res := call(t, env, c.tool, c.args)
		if !res.IsError || !strings.Contains(res.Text(), "refused by test rule") {
			t.Errorf("%s through a link: %s", c.tool, res.Text())
		}
	}
	if got := strings.Join(asked, "\n"); !strings.Contains(got, "write "+target) || !strings.Contains(got, "read "+target) {
		t.Errorf("Recheck saw %s", got)
	}
	if res := call(t, env, "grep", `{"pattern":"s3cret|fine"}`); strings.Contains(res.Text(), "s3cret") || !strings.Contains(res.Text(), "fine") || !strings.Contains(res.Text(), "left out") {
		t.Errorf("grep: %s", res.Text())
	}
	if data, _ := os.ReadFile(target); string(data) != "s3cret\n" {
		t.Errorf("secret changed: %q", data)
	}
}
