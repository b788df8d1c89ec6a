package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkHelperSetup is the sandbox's cost per bash call with the
// protected paths and the read deny list: /plain runs `bash -c true`
// unconfined, /landlock through the helper without a mount namespace (no
// protected or hidden paths), /namespace with the default lists and the
// paths present (so every bind and tmpfs mount happens), /allowlist the
// same with the network allow-list, and /command and /allowlist-command
// only build the command (the parent's share: the policy as JSON).
func BenchmarkHelperSetup(b *testing.B) {
	home := b.TempDir()
	tree := filepath.Join(home, "proj")
	for _, d := range []string{".git/hooks", ".git/info", ".pi", ".agents", ".vscode"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, d := range []string{".ssh", ".aws", ".gnupg", ".config/gh", ".docker", ".kube"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			b.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(tree, ".git", "config"), []byte("[core]\n"), 0o644)
	os.WriteFile(filepath.Join(home, ".netrc"), nil, 0o600)
	exe, _ := os.Executable()
	build := func(mode string, allow ...string) *Policy {
		p, err := Build(Inputs{Flags: Flags{Mode: mode}, Settings: Settings{NetAllow: allow}, Cwd: tree, Tmp: os.TempDir(), Home: home, AgentDir: filepath.Join(home, ".pi", "agent")})
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
	ns := build("workspace")
	if !ns.Confined() || !ns.mountNS() {
		b.Skip("no Landlock or no mount namespaces here")
	}
	ll := build("workspace")
	ll.paths = nil
	// Wall time swings with the machine's load; the CPU time the helper
	// and bash spend (reported as child-cpu-µs/op) much less so.
	// parent-cpu-µs/op is the starting process's own share (building the
	// command, the clone, which for a namespace is a full fork of the
	// parent, and waiting): in pi, the part of a call that grows with
	// pi's memory.
	run := func(b *testing.B, p *Policy) {
		var cpu time.Duration
		before := selfCPU()
		for b.Loop() {
			cmd, err := Shell{Policy: p, Exe: exe}.Command(context.Background(), "true", tree, nil)
			if err != nil {
				b.Fatal(err)
			}
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "child-cpu-µs/op")
		b.ReportMetric(float64((selfCPU()-before).Microseconds())/float64(b.N), "parent-cpu-µs/op")
	}
	b.Run("plain", func(b *testing.B) { run(b, build("off")) })
	b.Run("landlock", func(b *testing.B) { run(b, ll) })
	b.Run("namespace", func(b *testing.B) { run(b, ns) })
	// /allowlist is /namespace with the network allow-list: the proxy's
	// port in Landlock, the stricter socket filter and the proxy
	// variables (the proxy itself starts once, before the loop).
	al := build("workspace", "example.com")
	if !al.Enforced() {
		b.Skip("no Landlock ABI 4 here")
	}
	b.Run("allowlist", func(b *testing.B) { run(b, al) })
	for name, p := range map[string]*Policy{"command": ns, "allowlist-command": al} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := (Shell{Policy: p, Exe: exe}).Command(context.Background(), "true", tree, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	al.Close()
}

// selfCPU is the user and system time the calling process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
