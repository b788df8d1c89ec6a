package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestToolPolicy(t *testing.T) {
	p := ToolPolicy{ForbiddenPaths: []string{".env", ".env.*", "secrets/**", ".github/workflows/*"}}
	cwd := "/work/app"
	cases := []struct {
		tool, arg, refuse string // refuse: a word the reason must contain; "" lets the call go on
	}{
		{"bash", "rm -rf build dist", ""},
		{"bash", "rm -rf ./node_modules/.cache", ""},
		{"bash", "rm -r /tmp/scratch", "/tmp/scratch"},
		{"bash", "rm -rf ~", "~"},
		{"bash", "rm -fr ~/projects", "~/projects"},
		{"bash", `rm -rf "$HOME/.config"`, "$HOME"},
		{"bash", "rm --recursive --force ../other", "../other"},
		{"bash", "rm -rf build/../../x", "build/../../x"},
		{"bash", "rm -f /tmp/one-file", ""},
		{"bash", "cd /tmp && sudo rm -Rf /var/lib/x", "/var/lib/x"},
		{"bash", "find . -name '*.o' | xargs rm -rf /etc", "/etc"},
		{"bash", "echo 'rm -rf /' > notes.txt", ""},
		{"bash", "(cd sub; rm -rf /opt/thing)", "/opt/thing"},
		{"bash", "rm -rf /work/app/tmp", ""},
		{"bash", "git push origin main", ""},
		{"bash", "git push --force origin main", "force"},
		{"bash", "git push -fu origin feature", "force"},
		{"bash", "git -C repo push --force-with-lease", "force"},
		{"bash", "git push origin +main", "force"},
		{"bash", "git push origin HEAD:+refs/heads/main", "force"},
		{"bash", "git commit -m 'do not --force'", ""},
		{"bash", "echo KEY=1 > .env", ".env"},
		{"bash", "echo KEY=1 >>.env.local", ".env"},
		{"bash", "cat x | tee secrets/prod.json", "secrets/**"},
		{"bash", "echo ok > out.txt 2>&1", ""},
		{"write", ".env", ".env"},
		{"write", "/work/app/secrets/a/b.key", "secrets/**"},
		{"edit", ".github/workflows/ci.yml", "workflows"},
		{"write", "src/main.go", ""},
		{"write", "/elsewhere/.env", ""},
		{"read", ".env", ""},
		{"mcp__fs__write_file", "secrets/token", "secrets/**"},
		{"mcp__fs__read_text_file", "/work/app/.env", ".env"},
		{"mcp__fs__write_file", "src/main.go", ""},
		// The spellings of issue 19: wrappers, git's -c settings, nested
		// shells; and what cannot be checked statically is refused.
		{"bash", "nice -n 5 git push -f", "force"},
		{"bash", "timeout 30 git push --force", "force"},
		{"bash", "git -c remote.origin.push=+refs/heads/main:refs/heads/main push", "force"},
		{"bash", "git -c alias.p='push --force' p", "force"},
		{"bash", "/usr/bin/git push -f", "force"},
		{"bash", "env -S 'git push -f'", "force"},
		{"bash", "bash -o errexit -c 'git push --force'", "force"},
		{"bash", "echo 'git push -f' | sh", "force"},
		{"bash", "setsid taskset -c 0 git push -f", "force"},
		{"bash", "git push origin $BRANCH", "only known when the script runs"},
		{"bash", "echo -f | xargs git push", "xargs"},
		{"bash", "git frobnicate", "alias"},
		{"bash", "$(echo git) push -f", "only known when the script runs"},
		{"bash", "eval \"$CMD\"", "only known when the script runs"},
		{"bash", "git push 'unterminated", "does not parse"},
		{"bash", "find /etc -exec rm -rf {} +", "{}"},
		{"bash", "find . -name '*.o' -exec rm -f {} +", ""},
		{"bash", "sudo -u root rm -r /opt/x", "/opt/x"},
		{"bash", "{rm,-rf,/opt/y}", "/opt/y"},
		{"bash", "go test ./... && git status", ""},
		{"bash", "git -c user.name=x commit -m 'no --force here'", ""},
		{"bash", "nice -n 5 git push origin main", ""},
		{"bash", "cat <<'EOF' > .env\nKEY=1\nEOF", ".env"},
	}
	for _, c := range cases {
		key := "path"
		if c.tool == "bash" {
			key = "command"
		}
		in, _ := json.Marshal(map[string]string{key: c.arg})
		got := p.Check(c.tool, in, cwd)
		switch {
		case c.refuse == "" && got != "":
			t.Errorf("%s %q: refused (%s), want allowed", c.tool, c.arg, got)
		case c.refuse != "" && !strings.Contains(got, c.refuse):
			t.Errorf("%s %q: got %q, want a refusal mentioning %q", c.tool, c.arg, got, c.refuse)
		}
	}
	open := ToolPolicy{AllowRecursiveDeleteOutside: true, AllowForcePush: true}
	for _, cmd := range []string{"rm -rf /tmp/x", "git push -f"} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		if got := open.Check("bash", in, cwd); got != "" {
			t.Errorf("%q with the switches on: %s", cmd, got)
		}
	}
}

func FuzzCommands(f *testing.F) {
	f.Add(`rm -rf "a b" 'c' \d; git push -f | tee x > y && $(echo) ` + "`z`")
	f.Fuzz(func(t *testing.T, s string) {
		in, _ := json.Marshal(map[string]string{"command": s})
		_ = ToolPolicy{ForbiddenPaths: []string{"**"}}.Check("bash", in, "/w")
	})
}
