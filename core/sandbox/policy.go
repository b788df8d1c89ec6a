package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/piwasm/pi/core/sandbox/confine"
)

// Mode says what confined commands may write.
type Mode string

// Modes.
const (
	// ModeWorkspace lets commands write the working tree, the temp dir, the
	// usual build caches and any extra roots from settings.
	ModeWorkspace Mode = "workspace"
	// ModeReadOnly lets commands write nothing but a few device files.
	ModeReadOnly Mode = "read-only"
	// ModeOff turns the sandbox off: commands run as pi's user would.
	ModeOff Mode = "off"
)

// parseMode accepts the spellings the flag and settings use.
func parseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "workspace", "workspace-write", "on":
		return ModeWorkspace, nil
	case "read-only", "readonly", "ro":
		return ModeReadOnly, nil
	case "off", "none", "danger-full-access":
		return ModeOff, nil
	}
	return "", fmt.Errorf("unknown sandbox mode %q (want workspace, read-only or off)", s)
}

// Flags are the command-line choices; empty strings mean "not given".
// Mode is one of workspace, read-only, off or require (require keeps the
// mode from settings, or workspace, and refuses to run unconfined).
// Network is on or off.
type Flags struct {
	Mode    string
	Network string
}

// Inputs is everything [Build] reads. Getenv may be nil (no environment);
// it locates the Go caches when GOCACHE, GOMODCACHE, GOPATH or
// XDG_CACHE_HOME move them.
type Inputs struct {
	Flags    Flags
	Settings Settings
	Cwd      string
	Home     string
	Tmp      string
	Getenv   func(string) string
	// AgentDir is pi's agent dir, whose auth.json and models.json (API
	// keys) are on the read deny list; empty leaves them off.
	AgentDir string
}

// Root is one writable directory and why it is writable.
type Root struct {
	Path   string `json:"path"`   // absolute, symlinks resolved
	Reason string `json:"reason"` // "working tree", "temp dir", "Go build cache", "settings: FILE", ...

	// tool names the program whose cache this is; the helper creates the
	// directory when it is missing and the program is installed, so a
	// first "go build" can start its cache although home is not writable.
	tool string
	// remove marks a settings entry written "!PATH": it takes PATH off
	// the list instead of adding it.
	remove bool
}

// Policy is the effective sandbox for a run. Build it with [Build]; the
// zero value is not useful. A Policy is immutable (but for finding out, on
// first need, whether commands get mount namespaces) and safe for concurrent
// use.
type Policy struct {
	Mode Mode
	// Network: commands may open IPv4/IPv6 sockets to anywhere. False
	// with NetAllow set means the allow-list mode.
	Network bool
	// NetAllow is the network allow-list (settings sandbox.network.allow),
	// normalized: commands reach only these hosts, through pi's proxy.
	// Nil unless the network is in allow-list mode.
	NetAllow []string
	Require  bool
	// PassEnv are provider-key variables the user lets commands see
	// (settings sandbox.passEnv); pi leaves the others out.
	PassEnv []string
	// Roots are the writable roots in workspace mode (none otherwise),
	// resolved and de-duplicated, sorted by path.
	Roots []Root
	// Devices are device files writable in every confined mode.
	Devices []string

	enforcement Enforcement
	// proxy serves the allow-list mode; started by the first command
	// that needs it, shared by the copies Narrow and Unconfined make.
	proxy *netProxy
	// ns, when set, finds enforcement.MountNS on first need: the probe
	// starts a process in new namespaces, a full fork of pi (Go cannot
	// vfork with CLONE_NEWUSER), which cost a run of `pi -p` that starts no
	// command more than half its CPU. [Build] sets it; copies of the policy
	// ([Policy.Narrow], [Policy.Unconfined]) share it. See mountNS.
	ns *nsProbe
	// cacheEnv points commands' build tools at the per-project caches
	// (caches.go); workspace mode only.
	cacheEnv []string
	cwd      string // resolved working tree, for Explain's relative paths
	// paths, when set, makes the protected paths and the read deny list
	// on first need (see [Policy.Protected]); copies of the policy share
	// it. Nil: there are none (mode off).
	paths *lazyPaths
	// prefixes are the resolved roots with a trailing separator, for
	// CheckWrite's allocation-free prefix test.
	prefixes []string
}

// devices are writable in every confined mode: shells and build tools
// expect to discard output and read randomness. /dev/tty is not among
// them: a confined command has no terminal.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// ErrNotEnforced is returned (wrapped) by Build when the user required
// enforcement and this system cannot provide it.
var ErrNotEnforced = errors.New("the sandbox cannot be enforced here")

// Build computes the effective policy: flags override settings, settings
// override the defaults (workspace mode, network on). It probes the kernel
// once; when the policy cannot be enforced and the user required it, Build
// fails with an error wrapping [ErrNotEnforced]. Otherwise the caller
// prints [Policy.Notice] once, if it is not empty.
func Build(in Inputs) (*Policy, error) {
	p, err := build(in, probeKernel())
	if p != nil {
		p.ns = &nsProbe{probe: namespacesWork}
	}
	return p, err
}

func build(in Inputs, enf Enforcement) (*Policy, error) {
	p := &Policy{Mode: ModeWorkspace, Network: true}
	s := in.Settings
	if s.Mode != "" {
		m, err := parseMode(s.Mode)
		if err != nil {
			return nil, fmt.Errorf("settings sandbox.mode: %w", err)
		}
		p.Mode = m
	}
	if s.Network != nil {
		p.Network = *s.Network
	}
	if s.NetAllow != nil {
		p.Network, p.NetAllow = false, s.NetAllow
	}
	p.Require = s.Require
	p.PassEnv = s.PassEnv
	switch f := strings.ToLower(strings.TrimSpace(in.Flags.Mode)); f {
	case "":
	case "require":
		p.Require = true
		if p.Mode == ModeOff {
			p.Mode = ModeWorkspace
		}
	default:
		m, err := parseMode(f)
		if err != nil {
			return nil, fmt.Errorf("--sandbox: %w", err)
		}
		p.Mode = m
	}
	switch strings.ToLower(strings.TrimSpace(in.Flags.Network)) {
	case "":
	case "on", "true", "yes":
		p.Network, p.NetAllow = true, nil
	case "allow", "allow-list", "allowlist":
		// Once a spelling of "on"; now that "allow" names the allow-list
		// it would widen the network for a user who meant the list.
		return nil, fmt.Errorf("--sandbox-network: want on or off, not %q (the network allow-list is set in settings: \"sandbox\": {\"network\": {\"allow\": [...]}})", in.Flags.Network)
	case "off", "false", "no", "deny":
		p.Network, p.NetAllow = false, nil
	default:
		return nil, fmt.Errorf("--sandbox-network: want on or off, not %q", in.Flags.Network)
	}
	if p.Mode == ModeOff {
		p.Require = false
		p.Network, p.NetAllow = true, nil
	} else {
		p.Devices = devices
	}
	rs := resolver{}
	if in.Cwd != "" {
		p.cwd = rs.resolve(in.Cwd)
	}
	if p.Mode == ModeWorkspace {
		getenv := in.Getenv
		if getenv == nil {
			getenv = func(string) string { return "" }
		}
		// The caches' directory is named after the working tree resolved
		// above (one resolution of it per build, not three).
		caches := projectCachesAt(in, p.cwd, getenv)
		p.cacheEnv = caches.env
		p.Roots = defaultRoots(rs, in, s, caches)
		for _, r := range p.Roots {
			p.prefixes = append(p.prefixes, withSep(r.Path))
		}
	}
	if p.Mode != ModeOff {
		p.paths = &lazyPaths{make: func() pathSets { return p.makePaths(in, s) }}
	}
	p.enforcement = enf
	if p.NetAllow != nil {
		p.proxy = newNetProxy(p.NetAllow)
	}
	if p.Require && !p.Enforced() {
		return nil, fmt.Errorf("%w: %s (asked for with --sandbox require or sandbox.require in settings)", ErrNotEnforced, enf.Reason)
	}
	if p.Mode != ModeOff && !p.Network && p.NetAllow == nil && !p.Confined() {
		// The network off is a choice (it is on by default) that only the
		// kernel can hold commands to: running them unconfined, with the
		// network, after a notice, would do the opposite of what was asked
		// (as the allow-list, it fails closed). --sandbox off is the way
		// to run commands without the sandbox.
		return nil, fmt.Errorf("%w: %s, so commands would run with the network although it is off (--sandbox-network off or \"network\": false under \"sandbox\" in settings); turn the network on, or run with --sandbox off to run commands without the sandbox", ErrNotEnforced, p.enforcement.Reason)
	}
	return p, nil
}

// lazyPaths are a policy's protected paths and read deny list, made the
// first time anything asks for them: the file tools' first check, the
// first confined command's spec, `pi sandbox check`. Resolving them (~100
// paths: git's configuration and its includes, the home directory's
// credential stores) was ~3% of the CPU of a `pi -p` run that uses no tool
// and starts no command. Every check that uses them asks first, so each
// is exactly as strict as when they were made at Build; they reflect the
// file system when first needed rather than when pi started.
type lazyPaths struct {
	once sync.Once
	make func() pathSets
	sets pathSets
	// made is set once sets are made (for SweepAtExit, which must not
	// make them in a run that never needed them).
	made atomic.Bool
}

// pathSets are what lazyPaths make.
type pathSets struct {
	protected, denyRead []Root
	// missing are the protected paths that did not exist when they were
	// made (before any command ran), for sweep (commands in
	// workspace mode only).
	missing []string
}

// makePaths makes p's path sets from the inputs Build was given; p is the
// policy Build made (its mode and writable roots), not a copy.
func (p *Policy) makePaths(in Inputs, s Settings) pathSets {
	var ps pathSets
	rs := resolver{}
	if p.Mode == ModeWorkspace {
		if in.Cwd != "" {
			ps.protected = protectedRoots(rs, p.cwd, in.Home, s)
		}
		if extra := p.writableHomeProtected(rs, in.Home, in.AgentDir); len(extra) > 0 {
			ps.protected = dedupe(append(ps.protected, extra...))
		}
		if in.Cwd != "" {
			ps.missing = missingProtected(ps.protected)
		}
	}
	ps.denyRead = denyReadRoots(rs, in.Home, in.AgentDir, s)
	return ps
}

// pathSets returns p's path sets, making them the first time; nil when p
// has none.
func (p *Policy) pathSets() *pathSets {
	l := p.paths
	if l == nil {
		return nil
	}
	l.once.Do(func() {
		l.sets = l.make()
		l.make = nil
		l.made.Store(true)
	})
	return &l.sets
}

// Protected are the paths inside the writable roots that stay read-only
// in workspace mode (code that runs later, pi's policy), resolved, sorted
// by path. They are found the first time they are asked for.
func (p *Policy) Protected() []Root {
	if ps := p.pathSets(); ps != nil {
		return ps.protected
	}
	return nil
}

// DenyRead are the paths neither commands nor the file tools may read in
// a confined mode (credentials), resolved, sorted by path. They are found
// the first time they are asked for.
func (p *Policy) DenyRead() []Root {
	if ps := p.pathSets(); ps != nil {
		return ps.denyRead
	}
	return nil
}

// missing are the protected paths that did not exist before the first
// command ran (see pathSets).
func (p *Policy) missing() []string {
	if ps := p.pathSets(); ps != nil {
		return ps.missing
	}
	return nil
}

// nsProbe is the lazily made mount-namespace probe of a policy and the
// notice waiting for it.
type nsProbe struct {
	probe func() bool
	// late is called once with the namespace notice when the probe is
	// made after [Policy.Notices] (nil: nobody waits for it).
	late atomic.Pointer[func(string)]
	once sync.Once
}

// alwaysCreate marks a root the helper creates whatever is installed.
const alwaysCreate = confine.AlwaysCreate

// defaultRoots lists the writable roots of workspace mode, resolved.
// Roots that do not exist yet are kept under their cleaned path: the
// helper creates the build-cache directories before it confines itself.
func defaultRoots(rs resolver, in Inputs, s Settings, c cacheSetup) []Root {
	var roots []Root
	addFor := func(tool, path, reason string) {
		if path == "" || !filepath.IsAbs(path) {
			return
		}
		roots = append(roots, Root{Path: rs.resolve(path), Reason: reason, tool: tool})
	}
	add := func(path, reason string) { addFor("", path, reason) }
	add(in.Cwd, "working tree")
	add(in.Tmp, "temp dir")
	if runtime.GOOS == "linux" {
		add("/dev/shm", "shared memory")
	}
	if c.root != "" {
		addFor(alwaysCreate, c.root, "per-project build caches")
	}
	for _, r := range s.WritableRoots {
		add(r.Path, r.Reason)
	}
	return dedupe(roots)
}

// dedupe sorts roots and drops any root inside another one.
func dedupe(roots []Root) []Root {
	sort.SliceStable(roots, func(i, j int) bool { return roots[i].Path < roots[j].Path })
	var out []Root
	for _, r := range roots {
		if len(out) > 0 && within(r.Path, out[len(out)-1].Path) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// resolve makes path absolute and resolves symlinks in its longest
// existing prefix, so a root named through a symlink matches the resolved
// paths the file tools check and the paths Landlock sees.
func resolve(path string) string {
	path = filepath.Clean(path)
	rest := ""
	for cur := path; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return path
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// resolver resolves the many paths of one policy build (roots, protected
// paths, the read deny list: ~100, most under the same few directories)
// remembering each directory it resolved, so a build lstats every
// directory once instead of walking each path's ancestors again; `pi -p`
// spent ~5% of its time in those walks. It lives for one build only: the
// file system may change after it.
type resolver map[string]string

// resolve returns what the package's resolve returns for path.
func (r resolver) resolve(path string) string {
	path = filepath.Clean(path)
	if !filepath.IsAbs(path) {
		return resolve(path)
	}
	if v, ok := r[path]; ok {
		return v
	}
	v := path
	if parent := filepath.Dir(path); parent == path {
		v = resolve(path)
	} else {
		// The parent resolved (its longest existing prefix with symlinks
		// followed, the rest kept), only the last name is left: a missing
		// or unreadable name is kept under it, a symlink is followed in
		// full, anything else is itself.
		v = filepath.Join(r.resolve(parent), filepath.Base(path))
		if fi, err := os.Lstat(v); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			v = resolve(v)
		}
	}
	r[path] = v
	return v
}

func withSep(p string) string {
	if strings.HasSuffix(p, string(filepath.Separator)) {
		return p
	}
	return p + string(filepath.Separator)
}

// within reports whether path is root or below it (both clean).
func within(path, root string) bool {
	if path == root {
		return true
	}
	return strings.HasPrefix(path, withSep(root))
}

// Enforcement is what this system can enforce, from [Probe].
// It probes for mount namespaces if no command has yet.
func (p *Policy) Enforcement() Enforcement {
	e := p.enforcement
	e.MountNS = p.mountNS()
	return e
}

// mountNS reports whether commands can get a user and mount namespace of
// their own, probing the kernel the first time it is asked (from the first
// confined command's spec, or [Policy.Enforcement] and [Policy.Notice]).
// A probe made after [Policy.Notices] deferred the notice delivers it.
func (p *Policy) mountNS() bool {
	if p.ns == nil {
		return p.enforcement.MountNS
	}
	ok := p.ns.probe()
	if fn := p.ns.late.Load(); fn != nil {
		p.ns.once.Do(func() {
			if n := p.namespaceNoticeFor(ok); n != "" {
				(*fn)(n)
			}
		})
	}
	return ok
}

// Confined reports whether bash commands run through the helper: the mode
// is not off and the kernel has Landlock and seccomp (the seccomp filter
// keeps commands away from the terminal and from unusual sockets in every
// confined mode).
func (p *Policy) Confined() bool {
	return p.Mode != ModeOff && p.enforcement.Landlock() && p.enforcement.Seccomp
}

// Enforced reports whether the kernel can enforce this policy (always
// true for mode off, which needs nothing).
func (p *Policy) Enforced() bool {
	return p.Mode == ModeOff || p.Confined() && p.netAllowError() == nil
}

// netAllowMinABI is the Landlock ABI that restricts TCP connect and bind.
const netAllowMinABI = confine.NetAllowMinABI

// netAllowError says why the allow-list mode cannot be enforced here; nil
// in other modes and where it can. Commands do not run in allow-list
// mode without it: running them with the network fully on would be the
// opposite of what the user asked for.
func (p *Policy) netAllowError() error {
	if p.NetAllow == nil {
		return nil
	}
	if !p.Confined() || p.enforcement.LandlockABI < netAllowMinABI {
		return fmt.Errorf("the network allow-list (sandbox.network.allow) needs Landlock ABI %d or later (Linux 6.7) to hold commands to pi's proxy, and this system has %s; pi does not run commands in this mode here. Set \"network\" to true or false under \"sandbox\" in settings, or run with --sandbox-network on or off", netAllowMinABI, p.landlockText())
	}
	return nil
}

func (p *Policy) landlockText() string {
	if p.enforcement.LandlockABI == 0 {
		return "no Landlock"
	}
	if !p.Confined() {
		return "no command confinement"
	}
	return fmt.Sprintf("ABI %d", p.enforcement.LandlockABI)
}

// Notice is the one-time diagnostic for the caller to print when the
// policy asks for confinement the system cannot provide; empty otherwise.
func (p *Policy) Notice() string {
	if err := p.netAllowError(); err != nil {
		return "sandbox: " + err.Error() + "."
	}
	if p.Enforced() {
		return p.namespaceNotice()
	}
	return fmt.Sprintf("sandbox: %s; commands run unconfined (the file tools still check the %s policy). Use --sandbox require to refuse to run instead.", p.enforcement.Reason, p.Mode)
}

// Notices is [Policy.Notice] for a caller that need not know at once
// whether commands get mount namespaces, which takes a fork of pi to find
// out: it returns what can be said without that probe, and calls later,
// once, with the namespace notice when the first confined command (or
// anything else) makes the probe and it fails. A run that starts no
// command never probes. later must be safe to call from any goroutine.
func (p *Policy) Notices(later func(string)) string {
	if !p.Enforced() {
		return p.Notice()
	}
	if later == nil || p.ns == nil {
		return p.namespaceNotice()
	}
	p.ns.late.Store(&later)
	return ""
}

// ErrOutside is wrapped by CheckWrite's errors.
var ErrOutside = errors.New("outside the sandbox's writable roots")

// CheckWrite reports whether the file tools may write resolved, an
// absolute path with symlinks and ".." already resolved (for a new file,
// its nearest existing parent resolved and the rest appended). In
// workspace mode the protected paths are refused too.
func (p *Policy) CheckWrite(resolved string) error {
	if p.Mode == ModeWorkspace {
		if r, ok := p.protectedBy(resolved); ok {
			return protectedError(resolved, r)
		}
	}
	if p.Writable(resolved) {
		return nil
	}
	if p.Mode == ModeReadOnly {
		return fmt.Errorf("cannot write %s: the sandbox is read-only (%w; run with --sandbox workspace or --sandbox off to write)", resolved, ErrOutside)
	}
	return fmt.Errorf("cannot write %s: %w (the working tree, the temp dir and build caches); add the directory to \"writableRoots\" under \"sandbox\" in settings, or run with --sandbox off", resolved, ErrOutside)
}

// Writable reports whether CheckWrite would allow resolved, without
// building an error.
func (p *Policy) Writable(resolved string) bool {
	switch p.Mode {
	case ModeOff:
		return true
	case ModeWorkspace:
		for _, pre := range p.prefixes {
			// Below the root, or the root itself (pre minus its separator).
			if strings.HasPrefix(resolved, pre) || len(resolved)+1 == len(pre) && strings.HasPrefix(pre, resolved) {
				return true
			}
		}
	}
	for _, d := range p.Devices {
		if resolved == d {
			return true
		}
	}
	return false
}

// Unconfined returns a copy of p in mode off, for a command the user chose
// to run outside the sandbox (once, or for a pattern) after a denial.
func (p *Policy) Unconfined() *Policy {
	return &Policy{Mode: ModeOff, Network: true, enforcement: p.enforcement, proxy: p.proxy, ns: p.ns}
}
