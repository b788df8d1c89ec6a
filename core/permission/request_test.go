package permission

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/piwasm/pi/core/tool"
)

func TestRequestFor(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	cwd := filepath.Join(base, "proj")
	home := filepath.Join(base, "home")
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.MkdirAll(cwd, 0o755)
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(cwd, "keys"))
	paths := Paths{Home: home, Cwd: cwd}
	tests := []struct {
		call tool.Call
		want Request
	}{
		{tool.Call{Name: "bash", Args: map[string]any{"command": "ls"}}, Request{Tool: "bash", Command: "ls"}},
		{tool.Call{Name: "read", Args: map[string]any{"path": "keys/id_ed25519"}}, Request{Tool: "read", Path: filepath.Join(home, ".ssh", "id_ed25519")}},
		{tool.Call{Name: "write", Args: map[string]any{"path": "@new/dir/f.go"}}, Request{Tool: "write", Path: filepath.Join(cwd, "new", "dir", "f.go")}},
		{tool.Call{Name: "edit", Args: map[string]any{"path": "~/.ssh/config"}}, Request{Tool: "edit", Path: filepath.Join(home, ".ssh", "config")}},
		{tool.Call{Name: "grep", Args: map[string]any{"pattern": "x"}}, Request{Tool: "grep", Path: cwd}},
		{tool.Call{Name: "ls", Args: map[string]any{"path": "../home"}}, Request{Tool: "ls", Path: home}},
		{tool.Call{Name: "my_ext", Args: map[string]any{"path": "x"}}, Request{Tool: "my_ext"}},
	}
	for _, tt := range tests {
		if got := requestFor(tt.call, paths); got != tt.want {
			t.Errorf("%+v: got %+v, want %+v", tt.call, got, tt.want)
		}
	}
	// The resolved path is what the rules match: a deny on ~/.ssh holds
	// through the planted symlink.
	r, _ := ParseRule("read(~/.ssh/**)", paths)
	c := NewChecker(Rules{Deny: []Rule{r}})
	if d := c.Check(requestFor(tool.Call{Name: "read", Args: map[string]any{"path": "keys/id_ed25519"}}, paths)); d.Outcome != Deny {
		t.Errorf("read through a symlink into ~/.ssh: %+v", d)
	}
}
