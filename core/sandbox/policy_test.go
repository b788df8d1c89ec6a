package sandbox

import (
	"errors"
	"github.com/piwasm/pi/core/settings"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var (
	full    = Enforcement{OS: "linux", LandlockABI: 5, Seccomp: true, MountNS: true}
	noLL    = Enforcement{OS: "linux", Seccomp: true, Reason: "no landlock here"}
	noSecco = Enforcement{OS: "linux", LandlockABI: 3, Reason: "no seccomp here"}
)

func boolp(b bool) *bool { return &b }

func TestBuildPrecedence(t *testing.T) {
	base := t.TempDir()
	in := Inputs{Cwd: filepath.Join(base, "tree"), Home: filepath.Join(base, "home"), Tmp: filepath.Join(base, "tmp")}
	tests := []struct {
		name     string
		flags    Flags
		settings Settings
		enf      Enforcement
		mode     Mode
		network  bool
		require  bool
		err      string
		// notEnforced: err wraps ErrNotEnforced (pi exits as for
		// --sandbox require).
		notEnforced bool
	}{
		{name: "defaults", enf: full, mode: ModeWorkspace, network: true},
		{name: "settings mode", settings: Settings{Mode: "read-only"}, enf: full, mode: ModeReadOnly, network: true},
		{name: "flag beats settings", flags: Flags{Mode: "workspace"}, settings: Settings{Mode: "off"}, enf: full, mode: ModeWorkspace, network: true},
		{name: "network off by settings", settings: Settings{Network: boolp(false)}, enf: full, mode: ModeWorkspace},
		{name: "network flag beats settings", flags: Flags{Network: "on"}, settings: Settings{Network: boolp(false)}, enf: full, mode: ModeWorkspace, network: true},
		{name: "off ignores network off", flags: Flags{Mode: "off", Network: "off"}, enf: full, mode: ModeOff, network: true},
		{name: "require keeps settings mode", flags: Flags{Mode: "require"}, settings: Settings{Mode: "read-only"}, enf: full, mode: ModeReadOnly, network: true, require: true},
		{name: "require turns off into workspace", flags: Flags{Mode: "require"}, settings: Settings{Mode: "off"}, enf: full, mode: ModeWorkspace, network: true, require: true},
		{name: "require without landlock", flags: Flags{Mode: "require"}, enf: noLL, err: "no landlock here"},
		{name: "settings require without landlock", settings: Settings{Require: true}, enf: noLL, err: "no landlock here"},
		{name: "require network off without seccomp", flags: Flags{Mode: "require", Network: "off"}, enf: noSecco, err: "no seccomp here"},
		{name: "require network on without seccomp", flags: Flags{Mode: "require"}, enf: noSecco, err: "no seccomp here"},
		{name: "network off without seccomp fails closed", flags: Flags{Network: "off"}, enf: noSecco, err: "no seccomp here", notEnforced: true},
		{name: "network off in settings without landlock fails closed", settings: Settings{Network: boolp(false)}, enf: noLL, err: "network", notEnforced: true},
		{name: "read-only network off without seccomp fails closed", flags: Flags{Mode: "read-only", Network: "off"}, enf: noSecco, err: "--sandbox off", notEnforced: true},
		{name: "network on without seccomp runs with a notice", enf: noSecco, mode: ModeWorkspace, network: true},
		{name: "sandbox off with network off needs nothing", flags: Flags{Mode: "off", Network: "off"}, enf: noSecco, mode: ModeOff, network: true},
		{name: "off needs nothing", flags: Flags{Mode: "off"}, settings: Settings{Require: true}, enf: noLL, mode: ModeOff, network: true},
		{name: "bad flag mode", flags: Flags{Mode: "sometimes"}, enf: full, err: "--sandbox"},
		{name: "bad network flag", flags: Flags{Network: "maybe"}, enf: full, err: "--sandbox-network"},
		{name: "bad settings mode", settings: Settings{Mode: "loose"}, enf: full, err: "sandbox.mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := in
			in.Flags, in.Settings = tt.flags, tt.settings
			p, err := build(in, tt.enf)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one containing %q", err, tt.err)
				}
				if (tt.notEnforced || strings.Contains(tt.name, "require")) && !errors.Is(err, ErrNotEnforced) {
					t.Errorf("err %v does not wrap ErrNotEnforced", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Mode != tt.mode || p.Network != tt.network || p.Require != tt.require {
				t.Errorf("got mode %s network %v require %v, want %s %v %v", p.Mode, p.Network, p.Require, tt.mode, tt.network, tt.require)
			}
		})
	}
}

func TestNotice(t *testing.T) {
	in := Inputs{Cwd: "/w", Tmp: "/tmp"}
	p, _ := build(in, full)
	if n := p.Notice(); n != "" {
		t.Errorf("fully enforced policy has a notice: %q", n)
	}
	p, _ = build(in, noLL)
	if n := p.Notice(); !strings.Contains(n, "no landlock here") || !strings.Contains(n, "unconfined") {
		t.Errorf("notice = %q", n)
	}
	if p.Confined() {
		t.Error("confined without Landlock")
	}
	// The network off cannot be held without seccomp: refused (see
	// TestBuildPrecedence); with it on, commands run unconfined after the
	// notice.
	in.Flags.Network = "off"
	if _, err := build(in, noSecco); !errors.Is(err, ErrNotEnforced) {
		t.Errorf("network off without seccomp: err = %v", err)
	}
	in.Flags.Network = ""
	p, _ = build(in, noSecco)
	if n := p.Notice(); !strings.Contains(n, "no seccomp here") || !strings.Contains(n, "unconfined") {
		t.Errorf("notice = %q", n)
	}
	// Without seccomp nothing keeps a command from the terminal: the
	// helper would refuse to run it, so commands are not confined at all
	// and the notice says so.
	if p.Confined() {
		t.Error("confined without seccomp")
	}
}

func TestRoots(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(base, "home")
	env := map[string]string{"GOMODCACHE": filepath.Join(base, "gomod")}
	p, err := build(Inputs{
		Cwd: filepath.Join(link, "proj"), Home: home, Tmp: filepath.Join(base, "tmp"),
		Getenv:   func(k string) string { return env[k] },
		Settings: Settings{WritableRoots: []Root{{Path: filepath.Join(base, "extra"), Reason: "settings: x"}, {Path: filepath.Join(real, "proj", "sub"), Reason: "settings: inside"}}},
	}, full)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range p.Roots {
		got[r.Path] = r.Reason
	}
	want := map[string]string{
		filepath.Join(real, "proj"): "working tree", // symlink resolved, root inside it dropped
		filepath.Join(base, "tmp"):  "temp dir",
		projectCachesAt(Inputs{Cwd: filepath.Join(real, "proj"), Home: home}, resolve(filepath.Join(real, "proj")), func(string) string { return "" }).root: "per-project build caches",
		filepath.Join(base, "extra"): "settings: x",
		"/dev/shm":                   "shared memory",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("roots:\n got %v\nwant %v", got, want)
	}
}

func TestCheckWrite(t *testing.T) {
	ws, _ := build(Inputs{Cwd: "/w/proj", Tmp: "/t"}, full)
	ro, _ := build(Inputs{Cwd: "/w/proj", Tmp: "/t", Flags: Flags{Mode: "read-only"}}, full)
	off, _ := build(Inputs{Cwd: "/w/proj", Tmp: "/t", Flags: Flags{Mode: "off"}}, full)
	tests := []struct {
		p    *Policy
		path string
		ok   bool
	}{
		{ws, "/w/proj", true},
		{ws, "/w/proj/a/b.go", true},
		{ws, "/w/project", false}, // prefix of a name is not containment
		{ws, "/w/proj2/x", false},
		{ws, "/w", false},
		{ws, "/t/x", true},
		{ws, "/etc/passwd", false},
		{ws, "/dev/null", true},
		{ws, "/dev/sda", false},
		{ro, "/w/proj/a", false},
		{ro, "/dev/null", true},
		{off, "/etc/passwd", true},
	}
	for _, tt := range tests {
		err := tt.p.CheckWrite(tt.path)
		if (err == nil) != tt.ok {
			t.Errorf("%s CheckWrite(%s) = %v, want ok=%v", tt.p.Mode, tt.path, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrOutside) {
			t.Errorf("error %v does not wrap ErrOutside", err)
		}
	}
}

func TestParseSettings(t *testing.T) {
	tests := []struct {
		raw  string
		want Settings
		err  string
	}{
		{raw: ``},
		{raw: `null`},
		{raw: `{"mode":"read-only","network":false,"require":true}`, want: Settings{Mode: "read-only", Network: boolp(false), Require: true}},
		{raw: `{"network":"on"}`, want: Settings{Network: boolp(true)}},
		{raw: `{"writableRoots":["~/.m2","../shared","/opt/x/"]}`, want: Settings{WritableRoots: []Root{
			{Path: "/home/u/.m2", Reason: "settings: /p/.pi/settings.json"},
			{Path: "/p/shared", Reason: "settings: /p/.pi/settings.json"},
			{Path: "/opt/x", Reason: "settings: /p/.pi/settings.json"},
		}}},
		{raw: `{"writableRoots":["/"]}`, err: "not accepted"},
		{raw: `{"writableRoots":[""]}`, err: "empty path"},
		{raw: `{"mode":"wide-open"}`, err: "sandbox.mode"},
		{raw: `{"network":"sometimes"}`, err: "sandbox.network"},
		{raw: `{"writeableRoots":[]}`, err: "unknown field"},
		{raw: `[]`, err: "sandbox"},
	}
	for _, tt := range tests {
		got, err := parseSettings([]byte(tt.raw), "/p/.pi/settings.json", "/home/u")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "/p/.pi/settings.json") {
				t.Errorf("%s: err = %v, want one naming the file and containing %q", tt.raw, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.raw, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.raw, got, tt.want)
		}
	}
}

func TestLoadSettingsMerges(t *testing.T) {
	global, proj, bad := "/a/global.json", "/p/.pi/settings.json", "/b/bad.json"
	vals := []settings.Value{
		{File: global, Raw: []byte(`{"network":false,"writableRoots":["/g"]}`)},
		{File: bad, Raw: []byte(`{"mode":3}`)},
		{File: proj, Raw: []byte(`{"mode":"read-only","writableRoots":["/p"]}`)},
	}
	s, errs := LoadSettings(vals, "/home/u")
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), bad) {
		t.Errorf("errs = %v, want one naming %s", errs, bad)
	}
	if s.Mode != "read-only" || s.Network == nil || *s.Network || len(s.WritableRoots) != 2 || s.WritableRoots[0].Path != "/g" || s.WritableRoots[1].Path != "/p" {
		t.Errorf("merged = %+v", s)
	}
}

func TestExplain(t *testing.T) {
	ws, _ := build(Inputs{Cwd: "/w/proj", Tmp: "/t", Flags: Flags{Network: "off"}}, full)
	wsNet, _ := build(Inputs{Cwd: "/w/proj", Tmp: "/t"}, full)
	ro, _ := build(Inputs{Cwd: "/w/proj", Tmp: "/t", Flags: Flags{Mode: "read-only"}}, full)
	off, _ := build(Inputs{Cwd: "/w/proj", Tmp: "/t", Flags: Flags{Mode: "off"}}, full)
	unconfined, _ := build(Inputs{Cwd: "/w/proj", Tmp: "/t"}, noLL)
	tests := []struct {
		name string
		p    *Policy
		out  string
		code int
		want []string // substrings; nil means no note
	}{
		{"touch outside", ws, "touch: cannot touch '/etc/x': Permission denied\n", 1, []string{"/etc/x", "writableRoots", "--sandbox off"}},
		{"bash redirect", ws, "bash: line 1: /home/u/f: Permission denied\n", 1, []string{"/home/u/f"}},
		{"go path error", ws, "open /opt/data/x.json: permission denied\n", 1, []string{"/opt/data/x.json"}},
		{"mkdir", ws, "mkdir: cannot create directory '/srv/a': Permission denied", 1, []string{"/srv/a"}},
		{"inside the tree is not the sandbox", ws, "bash: /w/proj/x: Permission denied", 1, nil},
		{"success", ws, "touch: cannot touch '/etc/x': Permission denied", 0, nil},
		{"unrelated failure", ws, "FAIL: TestX\n", 1, nil},
		{"network off", ws, "curl: (6) Could not resolve host: example.com", 6, []string{"network off", "--sandbox-network on"}},
		{"go dial", ws, "dial tcp 1.2.3.4:443: socket: operation not permitted", 1, []string{"network"}},
		{"network on", wsNet, "curl: (6) Could not resolve host: example.com", 6, nil},
		{"read-only generic", ro, "cp: cannot create regular file 'x': Permission denied", 1, []string{"read-only", "--sandbox workspace"}},
		{"read-only named", ro, "touch: cannot touch '/w/proj/x': Permission denied", 1, []string{"/w/proj/x", "read-only"}},
		{"mode off", off, "touch: cannot touch '/etc/x': Permission denied", 1, nil},
		{"not confined", unconfined, "touch: cannot touch '/etc/x': Permission denied", 1, nil},
	}
	for _, tt := range tests {
		got := tt.p.Explain(tt.out, tt.code)
		if tt.want == nil {
			if got != "" {
				t.Errorf("%s: unexpected note %q", tt.name, got)
			}
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: note %q lacks %q", tt.name, got, w)
			}
		}
	}
}

func BenchmarkCheckWrite(b *testing.B) {
	p, err := build(Inputs{Cwd: "/home/u/src/proj", Home: "/home/u", Tmp: "/tmp"}, full)
	if err != nil {
		b.Fatal(err)
	}
	paths := []string{"/home/u/src/proj/internal/x/y.go", "/home/u/.ssh/authorized_keys", "/home/u/.cargo/git/x"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = p.Writable(paths[i%len(paths)])
	}
}

func TestUnconfined(t *testing.T) {
	p, _ := build(Inputs{Cwd: "/w", Tmp: "/t", Flags: Flags{Network: "off"}}, full)
	u := p.Unconfined()
	if u.Confined() || !u.Writable("/etc/x") || !u.Network || p.Writable("/etc/x") || p.Network {
		t.Errorf("unconfined %+v from %+v", u, p)
	}
}

// TestProjectCaches: the shared build caches are not writable roots; each
// project's commands get caches of their own, different per project, with
// Go reading the shared module cache as a proxy first.
func TestProjectCaches(t *testing.T) {
	env := map[string]string{"GOPATH": "/gp", "GOPROXY": "https://example.test"}
	getenv := func(k string) string { return env[k] }
	a, _ := build(Inputs{Cwd: "/w/a", Home: "/h", Tmp: "/t", Getenv: getenv}, full)
	b, _ := build(Inputs{Cwd: "/w/b", Home: "/h", Tmp: "/t", Getenv: getenv}, full)
	for _, shared := range []string{"/h/.cache/go-build", "/gp/pkg/mod/x", "/h/.npm", "/h/.cache/pip", "/h/.cargo/registry"} {
		if a.Writable(shared) {
			t.Errorf("%s is writable", shared)
		}
	}
	ca, cb := projectCachesAt(Inputs{Cwd: "/w/a", Home: "/h"}, resolve("/w/a"), getenv), projectCachesAt(Inputs{Cwd: "/w/b", Home: "/h"}, resolve("/w/b"), getenv)
	if ca.root == cb.root || !strings.HasPrefix(ca.root, "/h/.cache/pi/sandbox/a-") {
		t.Fatalf("roots %q %q", ca.root, cb.root)
	}
	if !a.Writable(filepath.Join(ca.root, "go-build", "x")) || a.Writable(filepath.Join(cb.root, "go-build", "x")) || !b.Writable(cb.root) {
		t.Error("a project may write its own caches only")
	}
	joined := strings.Join(a.cacheEnv, "\n")
	for _, want := range []string{"GOCACHE=" + ca.root + "/go-build", "GOMODCACHE=" + ca.root + "/go-mod", "npm_config_cache=" + ca.root + "/npm", "PIP_CACHE_DIR=" + ca.root + "/pip", "GOPROXY=file:///gp/pkg/mod/cache/download,https://example.test"} {
		if !strings.Contains(joined, want) {
			t.Errorf("cache env lacks %s:\n%s", want, joined)
		}
	}
	ro, _ := build(Inputs{Cwd: "/w/a", Home: "/h", Tmp: "/t", Getenv: getenv, Flags: Flags{Mode: "read-only"}}, full)
	if len(ro.cacheEnv) != 0 {
		t.Errorf("read-only mode: %v", ro.cacheEnv)
	}
}
