package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/piwasm/pi/core/permission"
	"github.com/piwasm/pi/core/tool"
)

func readTool() tool.Tool { return tool.Tool{Name: "read", Source: tool.SourceBuiltin} }

// A path rule judges the path a call resolves to: a link in the project
// to a denied directory is denied. (The gate resolves a path only when a
// rule or a default can tell paths apart; this is the case where one can.)
func TestGateJudgesTheResolvedPath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, secret := filepath.Join(root, "proj"), filepath.Join(root, "secret")
	for _, d := range []string{proj, secret} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(secret, "key"), "k")
	writeFile(t, filepath.Join(proj, "notes.md"), "n")
	if err := os.Symlink(secret, filepath.Join(proj, "docs")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	paths := permission.Paths{Home: root, Cwd: proj}
	r, err := permission.ParseRule("read("+secret+"/**)", paths)
	if err != nil {
		t.Fatal(err)
	}
	r.Source = "test"
	g := &Gate{Checker: permission.NewChecker(permission.Rules{Deny: []permission.Rule{r}}), Paths: paths}
	for _, c := range []struct {
		path  string
		block bool
	}{{"docs/key", true}, {"notes.md", false}, {"@docs/key", true}} {
		v, err := g.ToolCall(context.Background(), readTool(), tool.Call{ID: "c", Name: "read", Args: map[string]any{"path": c.path}})
		if err != nil || v.Block != c.block {
			t.Errorf("read %s: %+v %v, want block %v", c.path, v, err, c.block)
		}
		if c.block && !strings.Contains(v.Reason, "deny rule") {
			t.Errorf("read %s: reason %q", c.path, v.Reason)
		}
	}
}

// BenchmarkGateFileCall is the gate's cost for one read call without any
// permission rule (the usual case): the path was resolved, one file
// system lookup per component, although no rule could look at it.
func BenchmarkGateFileCall(b *testing.B) {
	dir := b.TempDir()
	writeFile(b, filepath.Join(dir, "f01.txt"), "line\n")
	g := &Gate{Checker: permission.NewChecker(permission.Rules{}), Paths: permission.Paths{Home: dir, Cwd: dir}}
	call := tool.Call{ID: "c", Name: "read", Args: map[string]any{"path": "f01.txt"}}
	b.ReportAllocs()
	for b.Loop() {
		if v, err := g.ToolCall(context.Background(), readTool(), call); err != nil || v.Block {
			b.Fatal(v, err)
		}
	}
}
