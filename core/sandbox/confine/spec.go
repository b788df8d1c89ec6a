package confine

// HelperArg is the hidden first argument that makes pi (or pi-sandbox)
// act as the confining helper: HelperArg SPEC -- PROGRAM ARGS...
const HelperArg = "__sandbox-exec"

// SelfNSArg in HelperArg's place makes the helper create its own user and
// mount namespace (SelfNSArg SPEC -- PROGRAM ARGS...), so pi can start it
// without namespace flags, with vfork, instead of a full fork of pi (Go
// forks when it must write a child's id maps). Only cmd/pi-sandbox linked
// with its entry point (the Makefile's -E) can: the kernel allows the
// unshare only while the process has one thread, before the Go runtime
// starts. A helper without it refuses (see [RunSelfNS]).
const SelfNSArg = "__sandbox-exec-ns"

// ProbeArg after SelfNSArg (SelfNSArg ProbeArg UID GID) makes the helper
// only create its namespaces, map UID and GID to themselves and make its
// mounts private, then exit 0: pi's once-per-run test of whether its
// helper can ([SelfNSArg]).
const ProbeArg = "-probe"

// EntryNotRun is the entry point's result when it did not call unshare:
// never a value unshare returns (0 or minus an error number).
const EntryNotRun = 1

// Entry is what cmd/pi-sandbox's entry point did before the Go runtime
// started, for [RunSelfNS].
type Entry struct {
	// Unshared is what unshare(CLONE_NEWUSER|CLONE_NEWNS) returned, or
	// EntryNotRun.
	Unshared int64
	// Affinity is the CPU affinity mask the process started with, as
	// sched_getaffinity wrote it, when the entry point pinned the process
	// to one of those CPUs (nil when it did not): the command gets it
	// back.
	Affinity []byte
}

// Spec is what the helper needs to confine itself, passed as JSON in its
// arguments (not the environment, so the confined command does not
// inherit it). Package sandbox writes it from the run's policy.
type Spec struct {
	// Stamp is the build stamp of the pi that wrote the policy (see
	// BuildStamp); the helper runs it only when it is its own.
	Stamp   string     `json:"stamp,omitempty"`
	Write   []string   `json:"write,omitempty"`
	Create  []CacheDir `json:"create,omitempty"`
	Devices []string   `json:"devices,omitempty"`
	Network bool       `json:"network"`
	// ProxyPort, in allow-list mode, is the only TCP port the command may
	// connect to (pi's proxy on loopback); no TCP bind, no UDP.
	ProxyPort int `json:"proxyPort,omitempty"`
	// NetNS, in allow-list mode: the helper runs in a network namespace
	// of its own and hands pi a listener on 127.0.0.1:ProxyPort there,
	// through the Unix socket HandOver (netns_linux.go here, pi's side in
	// package sandbox).
	NetNS    bool   `json:"netns,omitempty"`
	HandOver string `json:"handOver,omitempty"`
	// HostNetNS names pi's network namespace: the helper refuses to
	// forward while still in it.
	HostNetNS string `json:"hostNetNS,omitempty"`
	// Namespace: the helper runs in its own user and mount namespace and
	// makes ReadOnly read-only and Hide unreadable there (mounts_linux.go).
	Namespace bool     `json:"namespace,omitempty"`
	ReadOnly  []string `json:"readOnly,omitempty"`
	Hide      []string `json:"hide,omitempty"`
	// HostMountNS names pi's own mount namespace (/proc/self/ns/mnt): the
	// helper refuses to mount anything while it is still in it.
	HostMountNS string `json:"hostMountNS,omitempty"`
	// UID and GID are pi's user and group, which a helper started with
	// SelfNSArg maps to themselves in the user namespace it creates (once
	// in it, it can no longer ask the kernel what they were).
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
	// Filter is the seccomp program the helper loads last, for the
	// network mode above (see EncodeFilter): pi assembles it once per run.
	// The helper refuses a Spec without one.
	Filter []byte `json:"filter"`
}

// CacheDir is a build cache to create, if missing, when Tool is installed.
type CacheDir struct {
	Path string `json:"path"`
	Tool string `json:"tool"`
}

// AlwaysCreate as a CacheDir's Tool makes the helper create the directory
// whatever is installed.
const AlwaysCreate = "-"

// NetAllowMinABI is the Landlock ABI that restricts TCP connect and bind,
// which the network allow-list needs.
const NetAllowMinABI = 4

// buildStamp is set at link time, to the same value in pi and in the
// helper built with it (Makefile, -ldflags -X). pi uses the helper beside
// it only when it has a stamp, and the helper refuses a policy whose stamp
// is not its own, so a helper left over from another build never confines
// a command with rules it may read differently.
var buildStamp string

// BuildStamp is this build's stamp ("" for a build without one).
func BuildStamp() string { return buildStamp }
