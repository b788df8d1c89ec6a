package sandbox

import (
	"github.com/piwasm/pi/core/sandbox/confine"
	"github.com/piwasm/pi/internal/sibling"
)

// HelperName is the confining helper built next to pi by `make build`: a
// small program that does only what [RunHelper] does. Every sandboxed bash
// call starts the helper, and pi itself links the whole harness (the UI,
// the WebAssembly runtime, MCP, …), whose package initialisation and page
// faults cost several milliseconds of CPU per call; the small helper does
// not. Without it pi re-executes itself, as before.
const HelperName = "pi-sandbox"

// helperExe is the program that confines commands for pi at exe: the
// helper beside it when this build has one, else exe itself.
func helperExe(exe string) string { return helperExeFor(exe, confine.BuildStamp()) }

// helperExeFor is helperExe for a build with stamp.
func helperExeFor(exe, stamp string) string {
	if stamp == "" || exe == "" {
		return exe
	}
	if p, err := sibling.Path(exe, HelperName); err == nil {
		return p
	}
	return exe
}

// BuildStamp is this build's stamp ("" for a build without one), for the
// benchmarks that start the helper on its own.
func BuildStamp() string { return confine.BuildStamp() }
