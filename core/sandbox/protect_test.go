package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func rootPaths(rs []Root) map[string]string {
	m := map[string]string{}
	for _, r := range rs {
		m[r.Path] = r.Reason
	}
	return m
}

// The protected paths: the defaults, git's where the git directory really
// is, core.hooksPath and included config files, and what settings add or
// take away ("!").
func TestProtectedRoots(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	tree := filepath.Join(home, "proj")
	writeTree(t, tree, map[string]string{
		".git/config": "[core]\n\thooksPath = .husky\n[include]\n\tpath = ../shared.gitconfig\n[includeIf \"gitdir:~/w/\"]\n\tpath = ~/w.gitconfig\n",
	})
	cfg := filepath.Join(tree, ".git", "config")
	raw := `{"protectedPaths": ["!.vscode", "Makefile", "~/bin", "!.git/info"]}`
	s, err := parseSettings([]byte(raw), filepath.Join(home, "settings.json"), home)
	if err != nil {
		t.Fatal(err)
	}
	got := rootPaths(protectedRoots(resolver{}, tree, home, s))
	want := map[string]string{
		filepath.Join(tree, ".pi"):                  "default",
		filepath.Join(tree, ".agents"):              "default",
		filepath.Join(tree, ".claude"):              "default",
		filepath.Join(tree, ".envrc"):               "default",
		filepath.Join(tree, ".git/hooks"):           "default",
		filepath.Join(tree, ".git/config"):          "default",
		filepath.Join(tree, ".git/commondir"):       reasonGitRedirect,
		filepath.Join(tree, ".git/config.worktree"): reasonGitConfig,
		filepath.Join(tree, ".husky"):               "core.hooksPath in " + cfg,
		filepath.Join(tree, "shared.gitconfig"):     "included by " + cfg,
		filepath.Join(home, "w.gitconfig"):          "included by " + cfg,
		filepath.Join(tree, "Makefile"):             "settings: " + filepath.Join(home, "settings.json"),
		filepath.Join(home, "bin"):                  "settings: " + filepath.Join(home, "settings.json"),
	}
	for p, r := range want {
		if got[p] != r {
			t.Errorf("%s: reason %q, want %q", p, got[p], r)
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("unexpected protected path %s", p)
		}
	}
}

// git's indirections are protected whether they exist or not: the .git
// file of a linked worktree, commondir, config.worktree, each worktree's
// files under worktrees/, and each submodule's git directory (nested ones
// too, names with slashes too) with the .git file of its checkout.
func TestProtectedGitIndirections(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	main := filepath.Join(home, "main")
	git := filepath.Join(main, ".git")
	writeTree(t, home, map[string]string{
		"main/.git/config":                          "[core]\n",
		"main/.git/HEAD":                            "ref: refs/heads/main\n",
		"main/.git/worktrees/other/commondir":       "../..\n",
		"main/.git/worktrees/other/gitdir":          filepath.Join(home, "other", ".git") + "\n",
		"main/.git/modules/lib/HEAD":                "ref: refs/heads/main\n",
		"main/.git/modules/lib/config":              "[core]\n\tworktree = ../../../lib\n\thooksPath = .husky\n[include]\n\tpath = ../../../lib.inc\n",
		"main/.git/modules/lib/modules/deep/HEAD":   "x\n",
		"main/.git/modules/lib/modules/deep/config": "[core]\n\tworktree = ../../../../../lib/deep\n",
		"main/.git/modules/vendor/x/HEAD":           "x\n",
		"main/lib/.git":                             "gitdir: ../.git/modules/lib\n",
	})
	got := rootPaths(protectedRoots(resolver{}, main, home, Settings{}))
	for _, p := range []string{
		filepath.Join(git, "commondir"), filepath.Join(git, "config.worktree"),
		filepath.Join(git, "worktrees/other/commondir"), filepath.Join(git, "worktrees/other/gitdir"), filepath.Join(git, "worktrees/other/config.worktree"),
		filepath.Join(git, "modules/lib/config"), filepath.Join(git, "modules/lib/hooks"), filepath.Join(git, "modules/lib/info"),
		filepath.Join(git, "modules/lib/commondir"), filepath.Join(main, "lib.inc"), filepath.Join(main, "lib/.git"), filepath.Join(main, "lib/.husky"),
		filepath.Join(git, "modules/lib/modules/deep/config"), filepath.Join(git, "modules/lib/modules/deep/hooks"), filepath.Join(main, "lib/deep/.git"),
		filepath.Join(git, "modules/vendor/x/config"), filepath.Join(git, "modules/vendor/x/hooks"),
	} {
		if _, ok := got[p]; !ok {
			t.Errorf("%s not protected", p)
		}
	}
	// In the linked worktree the .git file itself is protected too.
	wt := filepath.Join(home, "other")
	writeTree(t, wt, map[string]string{".git": "gitdir: " + filepath.Join(git, "worktrees", "other") + "\n"})
	got = rootPaths(protectedRoots(resolver{}, wt, home, Settings{}))
	for _, p := range []string{filepath.Join(wt, ".git"), filepath.Join(git, "worktrees/other/commondir"), filepath.Join(git, "commondir"), filepath.Join(git, "hooks"), filepath.Join(git, "modules/lib/config")} {
		if _, ok := got[p]; !ok {
			t.Errorf("linked worktree: %s not protected", p)
		}
	}
}

// In a linked worktree, git's protected paths are in the common git
// directory (and the worktree's own config.worktree).
func TestProtectedRootsLinkedWorktree(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	main := filepath.Join(home, "main")
	wt := filepath.Join(home, "wt")
	gitDir := filepath.Join(main, ".git", "worktrees", "wt")
	writeTree(t, home, map[string]string{
		"wt/.git":                          "gitdir: " + gitDir + "\n",
		"main/.git/worktrees/wt/commondir": "../..\n",
		"main/.git/config":                 "[core]\n",
	})
	got := rootPaths(protectedRoots(resolver{}, wt, home, Settings{}))
	for _, p := range []string{filepath.Join(main, ".git", "hooks"), filepath.Join(main, ".git", "config"), filepath.Join(gitDir, "config.worktree"), filepath.Join(wt, ".pi")} {
		if _, ok := got[p]; !ok {
			t.Errorf("%s not protected: %v", p, got)
		}
	}
}

func TestCheckReadAndProtectedWrite(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	tree := filepath.Join(home, "proj")
	agent := filepath.Join(home, ".pi", "agent")
	s, err := parseSettings([]byte(`{"denyRead": ["~/.npmrc", "!~/.docker", "secrets"]}`), filepath.Join(home, "cfg", "settings.json"), home)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"workspace", "read-only", "off"} {
		p, err := build(Inputs{Flags: Flags{Mode: mode}, Settings: s, Cwd: tree, Home: home, Tmp: filepath.Join(home, "tmp"), AgentDir: agent}, full)
		if err != nil {
			t.Fatal(err)
		}
		for path, denied := range map[string]bool{
			filepath.Join(home, ".ssh", "id_ed25519"):  true,
			filepath.Join(home, ".ssh"):                true,
			filepath.Join(home, ".sshx"):               false,
			filepath.Join(home, ".npmrc"):              true,
			filepath.Join(home, ".docker", "config"):   false,
			filepath.Join(home, "cfg", "secrets", "x"): true,
			filepath.Join(agent, "auth.json"):          true,
			filepath.Join(agent, "models.json"):        true,
			filepath.Join(agent, "settings.json"):      false,
			filepath.Join(tree, "main.go"):             false,
		} {
			err := p.CheckRead(path)
			if want := denied && mode != "off"; (err != nil) != want || err != nil && !errors.Is(err, ErrReadDenied) {
				t.Errorf("%s: CheckRead(%s) = %v, want denied=%v", mode, path, err, want)
			}
			if err != nil && !strings.Contains(err.Error(), "denyRead") {
				t.Errorf("refusal does not name the setting: %v", err)
			}
		}
		err = p.CheckWrite(filepath.Join(tree, ".git", "hooks", "pre-commit"))
		switch mode {
		case "workspace":
			if !errors.Is(err, ErrProtected) || !strings.Contains(err.Error(), "protectedPaths") {
				t.Errorf("workspace: write to a hook: %v", err)
			}
			if err := p.CheckWrite(filepath.Join(tree, ".git", "index")); err != nil {
				t.Errorf("workspace: .git/index refused: %v", err)
			}
			if err := p.CheckWrite(filepath.Join(tree, ".pix")); err != nil {
				t.Errorf("workspace: .pix refused: %v", err)
			}
		case "off":
			if err != nil {
				t.Errorf("off: %v", err)
			}
		}
	}
}

func TestSettingsRefuseBadPaths(t *testing.T) {
	for _, raw := range []string{`{"denyRead": ["/"]}`, `{"denyRead": [""]}`, `{"protectedPaths": [""]}`, `{"protectedPaths": "x"}`, `{"denyRead": ["!"]}`} {
		if _, err := parseSettings([]byte(raw), "/s.json", "/home/u"); err == nil {
			t.Errorf("%s accepted", raw)
		}
	}
}

// FuzzGitConfigPaths: the loose git config reader never panics and only
// returns clean absolute paths.
func FuzzGitConfigPaths(f *testing.F) {
	f.Add("[core]\n\thooksPath = .husky\n[include]\npath=x\n")
	f.Add("[includeIf \"gitdir:/x\"] path = ~/y\n[core] hookspath=\"/abs\"")
	f.Add("[\n]\n=\n[core\nhookspath")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data string) {
		file := filepath.Join(dir, "config")
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			t.Skip()
		}
		for _, r := range gitConfigPaths(file, "/work/tree", "/home/u") {
			if !filepath.IsAbs(r.Path) || filepath.Clean(r.Path) != r.Path {
				t.Fatalf("%q from %q", r.Path, data)
			}
		}
	})
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Started in the home directory, pi protects the agent dir and the shell's
// start-up files, which a writable root now covers; elsewhere it leaves
// them off the list (they are not writable anyway).
func TestHomeFilesProtectedWhenWritable(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	agent := filepath.Join(home, ".pi", "agent")
	for cwd, want := range map[string]bool{home: true, filepath.Join(home, "proj"): false} {
		p, err := build(Inputs{Cwd: cwd, Home: home, Tmp: "/nonexistent-tmp", AgentDir: agent}, full)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{agent, filepath.Join(home, ".bashrc"), filepath.Join(home, ".gitconfig")} {
			if got := p.CheckWrite(filepath.Join(f, "x")) != nil && p.CheckWrite(f) != nil; got != true {
				t.Errorf("cwd %s: %s writable", cwd, f)
			}
			if _, listed := p.protectedBy(f); listed != want {
				t.Errorf("cwd %s: %s listed=%v, want %v", cwd, f, listed, want)
			}
		}
	}
}

// Confined without a mount namespace, pi says once that the lists hold for
// the file tools only.
func TestNoticeWithoutMountNamespace(t *testing.T) {
	noNS := full
	noNS.MountNS = false
	p, _ := build(Inputs{Cwd: "/w", Tmp: "/tmp", Home: "/home/u"}, noNS)
	if n := p.Notice(); !strings.Contains(n, "namespace") || !strings.Contains(n, "file tools") {
		t.Errorf("notice = %q", n)
	}
	if s := p.spec(); s.Namespace {
		t.Error("spec asks for a namespace the system cannot give")
	}
	p, _ = build(Inputs{Cwd: "/w", Tmp: "/tmp", Home: "/home/u"}, full)
	if s := p.spec(); !s.Namespace || len(s.ReadOnly) == 0 || len(s.Hide) == 0 {
		t.Errorf("spec %+v", s)
	}
}

// Finding out whether commands get mount namespaces forks pi; a run that
// starts no command must not pay for it. The probe waits for the first
// command's spec, and the notice that depends on it (Notices) comes then,
// once; Notice and Enforcement still answer at once when asked.
func TestMountNamespaceProbedOnFirstCommand(t *testing.T) {
	for _, works := range []bool{true, false} {
		probes := 0
		kernel := full
		kernel.MountNS = false // unknown until probed
		p, err := build(Inputs{Cwd: "/w", Tmp: "/tmp", Home: "/home/u"}, kernel)
		if err != nil {
			t.Fatal(err)
		}
		p.ns = &nsProbe{probe: func() bool { probes++; return works }}
		var late []string
		if n := p.Notices(func(n string) { late = append(late, n) }); n != "" {
			t.Errorf("works=%v: notice before any command: %q", works, n)
		}
		_ = p.Unconfined().Narrow(nil, false) // copies share the probe and make none
		if probes != 0 {
			t.Fatalf("works=%v: probed %d times before any command", works, probes)
		}
		for range 2 {
			if s := p.spec(); s.Namespace != works {
				t.Errorf("works=%v: spec.Namespace = %v", works, s.Namespace)
			}
		}
		if probes == 0 {
			t.Fatalf("works=%v: the first command did not probe", works)
		}
		if works && len(late) != 0 || !works && (len(late) != 1 || !strings.Contains(late[0], "namespace")) {
			t.Errorf("works=%v: late notices %q", works, late)
		}
		if p.Enforcement().MountNS != works {
			t.Errorf("works=%v: Enforcement().MountNS = %v", works, !works)
		}
	}
}

// The protected paths and the read deny list are made on first need, not
// by Build: once, shared by the policy's copies, and from the policy Build
// made (its writable roots decide which home files are protected), whichever
// copy asks first.
func TestPathsMadeOnFirstNeed(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	agent := filepath.Join(home, ".pi", "agent")
	p, err := build(Inputs{Cwd: home, Home: home, Tmp: "/nonexistent-tmp", AgentDir: agent}, full)
	if err != nil {
		t.Fatal(err)
	}
	if p.paths == nil || p.paths.make == nil {
		t.Fatal("Build made the path sets (or none are to be made)")
	}
	n := p.Narrow(nil, false)
	if _, ok := n.protectedBy(agent); !ok {
		t.Errorf("made through a narrowed copy, the agent dir is not protected: %v", n.Protected())
	}
	if p.paths.make != nil {
		t.Error("asking a copy did not make the shared sets")
	}
	if len(p.Protected()) == 0 || &p.Protected()[0] != &n.Protected()[0] || len(p.DenyRead()) == 0 {
		t.Errorf("the policy and its copy disagree: %v / %v", p.Protected(), n.Protected())
	}
	if !slices.Contains(p.missing(), filepath.Join(home, ".envrc")) {
		t.Errorf("a missing protected path is not swept after commands: %v", p.missing())
	}
	if u := p.Unconfined(); u.Protected() != nil || u.DenyRead() != nil || u.missing() != nil {
		t.Error("an unconfined copy has path sets")
	}
	off, err := build(Inputs{Flags: Flags{Mode: "off"}, Cwd: home, Home: home, AgentDir: agent}, full)
	if err != nil {
		t.Fatal(err)
	}
	if off.paths != nil || off.Protected() != nil || off.DenyRead() != nil {
		t.Error("mode off has path sets")
	}
}

// A protected path that a command replaced (another file or directory in
// its place, whatever the kernel let it do) is moved aside after the
// command, and the note says so; one that is unchanged stays.
func TestSweepMovesReplacementsAside(t *testing.T) {
	home, _ := filepath.EvalSymlinks(t.TempDir())
	tree := filepath.Join(home, "proj")
	writeTree(t, tree, map[string]string{".envrc": "ok\n", ".git/config": "[core]\n", ".git/hooks/x": "ok\n", ".vscode/settings.json": "{}"})
	p, err := Build(Inputs{Cwd: tree, Home: home, Tmp: filepath.Join(home, "tmp")})
	if err != nil {
		t.Fatal(err)
	}
	before := p.snapshot()
	// As `mv .git .git-old && cp -a .git-old .git` would leave it.
	git := filepath.Join(tree, ".git")
	if err := os.Rename(git, git+"-old"); err != nil {
		t.Fatal(err)
	}
	writeTree(t, tree, map[string]string{".git/config": "[core]\n\tfsmonitor = evil\n", ".git/hooks/post-checkout": "evil\n", ".envrc.new": "evil\n"})
	if err := os.Rename(filepath.Join(tree, ".envrc.new"), filepath.Join(tree, ".envrc")); err != nil {
		t.Fatal(err)
	}
	note := p.sweep(before)
	for _, path := range []string{".git/config", ".git/hooks", ".envrc"} {
		if _, err := os.Lstat(filepath.Join(tree, path)); err == nil {
			t.Errorf("the replaced %s is still in place", path)
		}
		if !strings.Contains(note, filepath.Join(tree, path)+".refused-by-pi") {
			t.Errorf("the note does not name %s: %s", path, note)
		}
	}
	if !strings.Contains(note, "refused replacing") {
		t.Errorf("note: %s", note)
	}
	if _, err := os.Lstat(filepath.Join(tree, ".vscode", "settings.json")); err != nil {
		t.Errorf("an unchanged protected path was moved: %v", err)
	}
	if again := p.sweep(p.snapshot()); again != "" {
		t.Errorf("a second sweep with nothing changed: %s", again)
	}
}
