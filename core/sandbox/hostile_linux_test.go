package sandbox_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/core/sandbox"
	"github.com/piwasm/pi/core/tool"
	"github.com/piwasm/pi/core/tool/builtin"
)

// world is a scratch layout: a working tree, a temp dir, a home and a
// sibling directory that nothing may write.
type world struct {
	base, tree, tmp, home, sibling string
}

func newWorld(t *testing.T) world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := world{base: base, tree: filepath.Join(base, "tree"), tmp: filepath.Join(base, "tmp"), home: filepath.Join(base, "home"), sibling: filepath.Join(base, "sibling")}
	for _, d := range []string{w.tree, w.tmp, w.home, w.sibling} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w.sibling, "existing"), []byte("original\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w world) policy(t *testing.T, flags sandbox.Flags) *sandbox.Policy {
	t.Helper()
	p, err := sandbox.Build(sandbox.Inputs{Flags: flags, Cwd: w.tree, Home: w.home, Tmp: w.tmp})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run runs script through the real bash tool, bound to p the way pi binds
// it, and returns the result text and 1 for a failed call, 0 otherwise.
func run(t *testing.T, p *sandbox.Policy, dir, script string) (string, int) {
	t.Helper()
	res := runTool(t, p, dir, "bash", map[string]any{"command": script, "timeout": float64(60)})
	if res.IsError {
		return res.Text(), 1
	}
	return res.Text(), 0
}

func runTool(t *testing.T, p *sandbox.Policy, dir, name string, args map[string]any) tool.Result {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := p.Apply(builtin.Env{Cwd: dir, Home: filepath.Join(dir, "..", "home"), Env: []string{"HOME=" + filepath.Join(dir, "..", "home")}}, exe)
	for _, tl := range p.AnnotateBash(builtin.Tools(env)) {
		if tl.Name == name {
			res, err := tl.Run(context.Background(), tool.Call{ID: "1", Name: name, Args: args}, nil)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return tool.Result{}
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

// requireEnforced returns true when the kernel enforces the default
// policy; otherwise it asserts the diagnostic pi prints and the refusal
// of --sandbox require, and returns false.
func requireEnforced(t *testing.T, w world) bool {
	t.Helper()
	if _, err := sandbox.Build(sandbox.Inputs{Flags: sandbox.Flags{Network: "off"}, Cwd: w.tree, Home: w.home, Tmp: w.tmp}); err != nil && !errors.Is(err, sandbox.ErrNotEnforced) {
		t.Fatal(err)
	}
	p := w.policy(t, sandbox.Flags{})
	if p.Enforced() {
		return true
	}
	if n := p.Notice(); n == "" || !strings.Contains(n, "--sandbox require") {
		t.Errorf("unenforced policy without a notice: %q", n)
	}
	_, err := sandbox.Build(sandbox.Inputs{Flags: sandbox.Flags{Mode: "require", Network: "off"}, Cwd: w.tree, Tmp: w.tmp})
	if !errors.Is(err, sandbox.ErrNotEnforced) {
		t.Errorf("--sandbox require on an unenforcing kernel: err = %v", err)
	}
	t.Logf("kernel cannot enforce the sandbox (%s); asserted the diagnostic instead", p.Enforcement().Reason)
	return false
}

func TestHostileCommands(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	p := w.policy(t, sandbox.Flags{})
	etc := fmt.Sprintf("/etc/pi-sandbox-test-%d", os.Getpid())
	root := fmt.Sprintf("/pi-sandbox-test-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(etc); os.Remove(root) })
	if err := os.Symlink(w.sibling, filepath.Join(w.tree, "planted")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(w.sibling, "existing"), filepath.Join(w.tree, "planted-file")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, script string
		forbidden    string // must not exist afterwards
	}{
		{"home", "echo x > \"$HOME/.bashrc-pwned\"", filepath.Join(w.home, ".bashrc-pwned")},
		{"etc", "echo x > " + etc, etc},
		{"sibling", "touch " + filepath.Join(w.sibling, "a"), filepath.Join(w.sibling, "a")},
		{"dot-dot", "touch ../sibling/b", filepath.Join(w.sibling, "b")},
		{"planted dir symlink", "echo x > planted/c", filepath.Join(w.sibling, "c")},
		{"cd slash", "cd / && touch " + strings.TrimPrefix(root, "/"), root},
		{"command substitution", "echo $(touch ../sibling/d; echo done)", filepath.Join(w.sibling, "d")},
		{"subshell", "(cd .. && mkdir sibling/e)", filepath.Join(w.sibling, "e")},
		{"mv out of tree", "echo x > f && mv f ../sibling/f", filepath.Join(w.sibling, "f")},
		{"nested bash -c", "bash -c 'touch ../sibling/g'", filepath.Join(w.sibling, "g")},
		{"env wrapper", "env FOO=1 sh -c 'touch ../sibling/h'", filepath.Join(w.sibling, "h")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, code := run(t, p, w.tree, tt.script)
			if exists(tt.forbidden) {
				t.Errorf("%q created %s (exit %d, output %q)", tt.script, tt.forbidden, code, out)
			}
		})
	}
	t.Run("symlinked file and hard link", func(t *testing.T) {
		out, _ := run(t, p, w.tree, "echo pwned >> planted-file; echo pwned > planted/existing; ln ../sibling/existing hl && echo pwned >> hl")
		if b, _ := os.ReadFile(filepath.Join(w.sibling, "existing")); string(b) != "original\n" {
			t.Errorf("outside file changed to %q (output %q)", b, out)
		}
	})
	t.Run("background process outlives the call", func(t *testing.T) {
		out, code := run(t, p, w.tree, "(sleep 0.3; touch ../sibling/bg; touch bg-done) >/dev/null 2>&1 &")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, out)
		}
		deadline := time.Now().Add(30 * time.Second)
		for !exists(filepath.Join(w.tree, "bg-done")) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !exists(filepath.Join(w.tree, "bg-done")) {
			t.Fatal("the background process never finished")
		}
		if exists(filepath.Join(w.sibling, "bg")) {
			t.Error("a background process left running wrote outside the tree")
		}
	})
	t.Run("denial is explained", func(t *testing.T) {
		out, code := run(t, p, w.tree, "touch "+filepath.Join(w.sibling, "z"))
		if code == 0 || !strings.Contains(out, "The sandbox (mode workspace) refused writing "+filepath.Join(w.sibling, "z")) {
			t.Errorf("exit %d result %q", code, out)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		script := strings.Join([]string{
			"set -e",
			"echo ok > in-tree && mkdir -p sub/dir && mv in-tree sub/dir/moved",
			"echo ok > " + filepath.Join(w.tmp, "t") + " && mv " + filepath.Join(w.tmp, "t") + " moved-from-tmp",
			"echo discard > /dev/null",
			"cat /etc/passwd > /dev/null && ls / > /dev/null && head -c 4 /dev/urandom > /dev/null",
			"cat ../sibling/existing",
		}, "\n")
		out, code := run(t, p, w.tree, script)
		if code != 0 || !strings.Contains(out, "original") {
			t.Errorf("exit %d: %s", code, out)
		}
		if !exists(filepath.Join(w.tree, "sub", "dir", "moved")) || !exists(filepath.Join(w.tree, "moved-from-tmp")) {
			t.Error("writes inside the tree did not happen")
		}
	})
	t.Run("shared caches read-only, per-project caches writable", func(t *testing.T) {
		// A poisoned entry in a shared build cache would be used by the
		// user's next unconfined build.
		for _, dir := range []string{filepath.Join(w.home, ".cache", "go-build"), filepath.Join(w.home, ".npm"), filepath.Join(w.home, ".cargo", "registry")} {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			run(t, p, w.tree, "touch "+filepath.Join(dir, "poisoned"))
			if exists(filepath.Join(dir, "poisoned")) {
				t.Errorf("a confined command wrote the shared cache %s", dir)
			}
		}
		out, code := run(t, p, w.tree, `mkdir -p "$GOCACHE" "$npm_config_cache" && touch "$GOCACHE/entry" "$npm_config_cache/entry" && echo "$GOCACHE"`)
		if code != 0 || !strings.Contains(out, filepath.Join(w.home, ".cache", "pi", "sandbox")) {
			t.Errorf("per-project caches: exit %d output %q", code, out)
		}
	})
	t.Run("control: mode off writes outside", func(t *testing.T) {
		off := w.policy(t, sandbox.Flags{Mode: "off"})
		run(t, off, w.tree, "touch ../sibling/control")
		if !exists(filepath.Join(w.sibling, "control")) {
			t.Error("mode off did not write: the hostile cases above prove nothing")
		}
	})
}

func TestReadOnlyMode(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	p := w.policy(t, sandbox.Flags{Mode: "read-only"})
	out, code := run(t, p, w.tree, "cat ../sibling/existing; touch in-tree")
	if code == 0 || exists(filepath.Join(w.tree, "in-tree")) || !strings.Contains(out, "original") {
		t.Errorf("exit %d output %q", code, out)
	}
}

func TestNetworkOff(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && cat <&3", port)

	out, code := run(t, w.policy(t, sandbox.Flags{}), w.tree, script)
	if code != 0 || !strings.Contains(out, "hello") {
		t.Fatalf("network on: exit %d output %q", code, out)
	}
	off := w.policy(t, sandbox.Flags{Network: "off"})
	out, code = run(t, off, w.tree, script)
	if code == 0 || strings.Contains(out, "hello") {
		t.Errorf("network off still connected: exit %d output %q", code, out)
	}
	// Unix sockets and the file system rules still work with network off.
	out, code = run(t, off, w.tree, "touch ok && touch ../sibling/no")
	if !exists(filepath.Join(w.tree, "ok")) || exists(filepath.Join(w.sibling, "no")) {
		t.Errorf("file rules with network off: exit %d output %q", code, out)
	}
}

func TestHelperFailsClosed(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{sandbox.HelperArg},
		{sandbox.HelperArg, "{not json", "--", "true"},
		{sandbox.HelperArg, "{}", "true"},
		{sandbox.HelperArg, `{"network":true}`, "--", "no-such-program-pi"},
	} {
		out, err := exec.Command(exe, args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 126 || !strings.Contains(string(out), "pi sandbox:") {
			t.Errorf("%q: err %v output %q, want exit 126 with a reason", args, err, out)
		}
	}
}

// BenchmarkBashCall measures the added cost of the helper: compare
// /plain (bash -c true) with /confined.
func BenchmarkBashCall(b *testing.B) {
	dir := b.TempDir()
	exe, _ := os.Executable()
	for _, mode := range []string{"off", "workspace"} {
		p, err := sandbox.Build(sandbox.Inputs{Flags: sandbox.Flags{Mode: mode}, Cwd: dir, Tmp: os.TempDir(), Home: dir})
		if err != nil {
			b.Fatal(err)
		}
		name := map[string]string{"off": "plain", "workspace": "confined"}[mode]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd, _ := sandbox.Shell{Policy: p, Exe: exe}.Command(context.Background(), "true", dir, nil)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}

// TestFileTools checks that write and edit refuse what bash cannot do,
// through symlinks and "..", and still work inside the roots. The Guard
// needs no kernel support, so this runs everywhere.
func TestFileTools(t *testing.T) {
	w := newWorld(t)
	p, err := sandbox.Build(sandbox.Inputs{Cwd: w.tree, Home: w.home, Tmp: w.tmp, Flags: sandbox.Flags{Mode: "workspace"}})
	if err != nil && !errors.Is(err, sandbox.ErrNotEnforced) {
		t.Fatal(err)
	}
	if err := os.Symlink(w.sibling, filepath.Join(w.tree, "planted")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(w.sibling, "existing"), filepath.Join(w.tree, "planted-file")); err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"write via dot-dot", "write", map[string]any{"path": "../sibling/new", "content": "x"}},
		{"write via dir symlink", "write", map[string]any{"path": "planted/new2", "content": "x"}},
		{"write via file symlink", "write", map[string]any{"path": "planted-file", "content": "pwned"}},
		{"write new dirs via symlink", "write", map[string]any{"path": "planted/a/b/c", "content": "x"}},
		{"write absolute", "write", map[string]any{"path": filepath.Join(w.home, ".profile"), "content": "x"}},
		{"write home tilde", "write", map[string]any{"path": "~/.profile", "content": "x"}},
		{"edit via file symlink", "edit", map[string]any{"path": "planted-file", "edits": []any{map[string]any{"oldText": "original", "newText": "pwned"}}}},
		{"edit via dot-dot", "edit", map[string]any{"path": "../sibling/existing", "edits": []any{map[string]any{"oldText": "original", "newText": "pwned"}}}},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			res := runTool(t, p, w.tree, tt.tool, tt.args)
			if !res.IsError || !strings.Contains(res.Text(), "writableRoots") {
				t.Errorf("result %+v, want a refusal naming the setting", res)
			}
		})
	}
	for _, f := range []string{"new", "new2", "a"} {
		if exists(filepath.Join(w.sibling, f)) {
			t.Errorf("%s was created outside the tree", f)
		}
	}
	if exists(filepath.Join(w.home, ".profile")) {
		t.Error("home was written")
	}
	if b, _ := os.ReadFile(filepath.Join(w.sibling, "existing")); string(b) != "original\n" {
		t.Errorf("outside file changed: %q", b)
	}
	res := runTool(t, p, w.tree, "read", map[string]any{"path": "planted-file"})
	if res.IsError || !strings.Contains(res.Text(), "original") {
		t.Errorf("reading through a symlink outside the tree: %+v", res)
	}
	res = runTool(t, p, w.tree, "write", map[string]any{"path": "sub/ok.txt", "content": "fine"})
	if res.IsError {
		t.Errorf("write inside the tree: %+v", res)
	}
	res = runTool(t, p, w.tree, "edit", map[string]any{"path": "sub/ok.txt", "edits": []any{map[string]any{"oldText": "fine", "newText": "better"}}})
	if b, _ := os.ReadFile(filepath.Join(w.tree, "sub", "ok.txt")); res.IsError || string(b) != "better" {
		t.Errorf("edit inside the tree: %+v, file %q", res, b)
	}
	off, _ := sandbox.Build(sandbox.Inputs{Cwd: w.tree, Home: w.home, Tmp: w.tmp, Flags: sandbox.Flags{Mode: "off"}})
	if res := runTool(t, off, w.tree, "write", map[string]any{"path": "../sibling/control", "content": "x"}); res.IsError || !exists(filepath.Join(w.sibling, "control")) {
		t.Errorf("control: mode off should write outside: %+v", res)
	}
}

// TestMetadataOutsideTheRoots: Landlock has no right for chmod, chown,
// utimes or xattrs; the read-only mounts outside the writable roots refuse
// them (issue 19: a private key made 0644). Inside the tree they work.
func TestMetadataOutsideTheRoots(t *testing.T) {
	w := newWorld(t)
	if !requireEnforced(t, w) {
		return
	}
	p := w.policy(t, sandbox.Flags{})
	if !p.Enforcement().MountNS {
		t.Skip("no mount namespace here: metadata changes outside the roots are not refused (docs/sandbox.md)")
	}
	key := filepath.Join(w.sibling, "id_x")
	if err := os.WriteFile(key, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(key, old, old); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{
		"chmod 644 " + key,
		"chmod 644 ../sibling/id_x",
		"touch -d 2020-01-01 " + key,
		"chown $(id -u):$(id -g) " + key,
		"exec 3<" + key + "; chmod 644 /dev/fd/3",
	} {
		run(t, p, w.tree, script)
	}
	fi, err := os.Stat(key)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || !fi.ModTime().Equal(old) {
		t.Errorf("outside file changed: mode %v, mtime %v", fi.Mode().Perm(), fi.ModTime())
	}
	out, code := run(t, p, w.tree, "echo '#!/bin/sh' > s.sh && chmod +x s.sh && touch -d 2020-01-01 s.sh && ./s.sh && echo inside-ok")
	if code != 0 || !strings.Contains(out, "inside-ok") {
		t.Errorf("metadata changes inside the tree: exit %d %q", code, out)
	}
}
