package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The mounts that protect paths and hide credentials cannot be lifted by
// the command: not by umount, a remount, a new mount namespace, nor
// through /proc/PID/root of pi itself (even when pi runs as root, whose
// capabilities survive into the namespace).
func TestMountsCannotBeLifted(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	tree := filepath.Join(home, "proj")
	hooks := filepath.Join(tree, ".git", "hooks")
	ssh := filepath.Join(home, ".ssh")
	for _, d := range []string{hooks, ssh, filepath.Join(home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ssh, "id"), []byte("SECRET-KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Build(Inputs{Cwd: tree, Home: home, Tmp: filepath.Join(home, "tmp")})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Confined() || !p.mountNS() {
		t.Skip("no Landlock or no mount namespaces here")
	}
	exe, _ := os.Executable()
	script := `for p in "$H" "$S"; do umount "$p"; umount -l "$p"; mount -o remount,rw,bind "$p"; done
echo planted > "$H/pre-commit"
cat "$S/id"
unshare -m sh -c 'umount -l "$S"; cat "$S/id"; umount -l "$H"; echo planted > "$H/pre-commit2"'
cat /proc/$PPID/root"$S/id" /proc/1/root"$S/id"
cat /proc/` + itoa(os.Getpid()) + `/root"$S/id"
true`
	cmd, err := Shell{Policy: p, Exe: exe}.Command(context.Background(), script, tree, append(os.Environ(), "H="+hooks, "S="+ssh))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := cmd.CombinedOutput()
	if strings.Contains(string(out), "SECRET-KEY") {
		t.Errorf("the command read the hidden key:\n%s", out)
	}
	for _, f := range []string{"pre-commit", "pre-commit2"} {
		if _, err := os.Stat(filepath.Join(hooks, f)); err == nil {
			t.Errorf("the command wrote .git/hooks/%s:\n%s", f, out)
		}
	}
	t.Logf("%s", out)
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}
