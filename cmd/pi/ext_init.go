package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/piwasm/pi"
)

// The scaffold written by `pi ext init`. NAME is replaced by the extension's
// name.
const scaffoldManifest = `# NAME: adds one section to the system prompt.
# In this directory:
#   pi ext build        compiles main.go into NAME.wasm (GOOS=wasip1 GOARCH=wasm
#                       go build -buildmode=c-shared)
#   go test             runs the handler on the host (sdk.Harness)
#   pi ext test         loads NAME.wasm as pi does and calls its hook with event.json
#   pi ext install .    copies the package into your agent dir
name: NAME
version: 0.1.0
abi: 1
hooks: [before_agent_start]

# An extension gets nothing it does not ask for here and the user does not
# grant. Uncomment what this one needs.
# capabilities:
#   files: [".git/HEAD", "docs/**/*.md"]   # globs relative to the project root
#   network: [api.example.com]           # hosts for HTTP requests
#   env: [USER]                          # environment variables
#   clock: true                          # the real time (otherwise a fixed clock)
#   random: true                         # real randomness (otherwise deterministic)

# Per-call limits; the values shown are the defaults.
# limits:
#   timeoutMs: 500
#   memoryMiB: 64
#   outputKiB: 1024

# What happens when a call fails: skip (go on without this extension's
# edit, with a diagnostic) or abort (stop the run; for policy extensions).
# failure: skip

# Free-form settings, read in the guest with sdk.Config.
# config:
#   greeting: hello
`

const scaffoldMain = `// NAME adds a short section to the system prompt before each run.
//
// Built for pi with GOOS=wasip1 GOARCH=wasm -buildmode=c-shared (pi ext
// build); on the host, go test runs the same handler through sdk.Harness.
package main

import (
	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func init() {
	sdk.OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
		// Order places the section: rules are at 200, docs 300, skills 600,
		// cwd 700 (see docs/extensions.md).
		r.SetSection("NAME", "Hello from the NAME extension.", sdk.Order(650))
		return nil
	})
}

func main() {} // required by the toolchain; a c-shared module never runs it
`

const scaffoldTest = `package main

// go test runs the handler registered in main.go on the host, through the
// SDK's harness. pi ext test runs the built module the way pi does.

import (
	"testing"

	"github.com/piwasm/pi/abi"
	sdk "github.com/piwasm/pi/sdk-guest"
)

func TestBeforeAgentStart(t *testing.T) {
	var h sdk.Harness
	res, err := h.BeforeAgentStart(abi.BeforeAgentStartEvent{Input: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ops) != 1 || res.Ops[0].Op != abi.OpSetSection || res.Ops[0].Name != "NAME" {
		t.Fatalf("ops: %+v", res.Ops)
	}
	if err := abi.ValidateOps(abi.HookBeforeAgentStart, res.Ops); err != nil {
		t.Fatal(err)
	}
}
`

// scaffoldGoMod makes the extension its own module, with the SDK written
// next to it: nothing needs a module proxy.
const scaffoldGoMod = `module example.com/NAME

GOLINE

require github.com/piwasm/pi v0.0.0

// pi is not served by a module proxy: ./pi-sdk is the SDK that pi ext init
// wrote (see pi-sdk/VERSION).
replace github.com/piwasm/pi => ./pi-sdk
`

const scaffoldGitignore = `*.wasm
node_modules/
`

const scaffoldManifestAS = `# NAME: adds one section to the system prompt (AssemblyScript, built with
# the stock Extism PDK @extism/as-pdk). In this directory:
#   pi ext build        npm ci (pinned by package-lock.json), then asc into NAME.wasm
#   pi ext test         loads NAME.wasm as pi does and calls its hook with event.json
#   pi ext install .    copies the package into your agent dir
name: NAME
version: 0.1.0
abi: 1
hooks: [before_agent_start]

# Capabilities, limits and failure policy work as for any extension; see
# docs/extensions.md.

# Read in the guest with fetch("config") (JSON).
config:
  text: Hello from the NAME extension.
`

const scaffoldIndexAS = `// NAME adds a section to the system prompt, with the text from its
// manifest's config. It speaks pi's contract through the stock Extism PDK:
// the event is the Extism input, the answer (an envelope) the Extism
// output, and pi_fetch_block serves other values (docs/extensions.md).
import { Host, Memory } from "@extism/as-pdk";
import { error_set, length } from "@extism/as-pdk/lib/env";
import { decodeString, quote, rawField } from "./json";

// pi_fetch_block(key) returns the offset of an Extism memory block holding
// the value of key, or a negative error code (-1 not found).
@external("extism:host/user", "pi_fetch_block")
declare function pi_fetch_block(key: u64): i64;

function fetch(key: string): string | null {
  const k = Memory.allocateString(key);
  const off = pi_fetch_block(k.offset);
  k.free();
  if (off < 0) return null;
  return new Memory(u64(off), length(u64(off))).toString();
}

// output writes s as the call's Extism output (encoded first: the PDK's
// outputString counts UTF-16 units, not bytes).
function output(s: string): void {
  Host.output(Uint8Array.wrap(String.UTF8.encode(s)));
}

export function pi_abi_version(): i32 {
  return 1;
}

export function pi_before_agent_start(): i32 {
  const event = Host.inputString(); // a BeforeAgentStartEvent (JSON)
  if (!event.startsWith("{")) {
    output(` + "`" + `{"error":"event is not a JSON object"}` + "`" + `);
    return 0;
  }
  const config = fetch("config");
  let text: string | null = null;
  if (config !== null) text = rawField(config, "text");
  if (text === null) {
    output(` + "`" + `{"error":"config.text is missing"}` + "`" + `);
    return 0;
  }
  // Order places the section: rules are at 200, docs 300, skills 600.
  output(` + "`" + `{"result":{"ops":[{"op":"set_section","name":"NAME","order":650,"text":${quote(decodeString(text))}}]}}` + "`" + `);
  return 0;
}

// piAbort replaces AssemblyScript's default abort (pi provides no env.abort):
// the message becomes the Extism error and the call traps.
export function piAbort(message: string | null, file: string | null, line: u32, column: u32): void {
  const m = Memory.allocateString(message === null ? "abort" : message);
  error_set(m.offset);
  unreachable();
}
`

const scaffoldEvent = `{
  "input": "What does this project do?",
  "options": {
    "tools": ["read", "bash", "edit", "write"],
    "cwd": "/tmp/project",
    "sections": [
      {"name": "preamble", "order": 0, "source": "builtin", "bytes": 120},
      {"name": "rules", "order": 200, "source": "builtin", "bytes": 300}
    ]
  }
}
`

func (a *app) cmdExtInit(args []string) error {
	flags := newExtFlags("init")
	dirFlag := flags.String("dir", "", "directory to create the package in (default ./NAME)")
	lang := flags.String("lang", "go", "language of the scaffold: go, assemblyscript (as), or typescript (ts)")
	ts := flags.Bool("ts", false, "a TypeScript extension in the established harness's format (same as --lang typescript)")
	rest, err := a.parseExt(flags, args, "pi ext init NAME [--dir DIR] [--lang go|assemblyscript|typescript] [--ts]\n\n"+
		"Writes a new extension package. A Go package is its own module whose go.mod\n"+
		"points at a copy of pi's SDK written to DIR/pi-sdk (no network needed); an\n"+
		"AssemblyScript package pins @extism/as-pdk in package.json and package-lock.json.", 1, "the extension NAME")
	if err != nil {
		return err
	}
	name := rest[0]
	if *ts {
		*lang = "typescript"
	}
	if err := validExtName(name); err != nil {
		return usagef("ext init: %v", err)
	}
	dir := *dirFlag
	if dir == "" {
		dir = name
	}
	dir = a.absFrom(dir)
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	var files []pi.SDKFile
	add := func(path, text string) {
		files = append(files, pi.SDKFile{Path: path, Data: []byte(strings.ReplaceAll(text, "NAME", name))})
	}
	switch *lang {
	case "go":
		add("extension.yaml", scaffoldManifest)
		add("main.go", scaffoldMain)
		add("main_test.go", scaffoldTest)
		add("event.json", scaffoldEvent)
		add(".gitignore", scaffoldGitignore)
		if !insidePiModule(dir) {
			goLine := "go 1.26"
			for _, f := range pi.SDKModule() {
				if f.Path == "go.mod" {
					for _, l := range strings.Split(string(f.Data), "\n") {
						if strings.HasPrefix(l, "go ") {
							goLine = l
						}
					}
				}
			}
			add("go.mod", strings.ReplaceAll(scaffoldGoMod, "GOLINE", goLine))
			for _, f := range pi.SDKModule() {
				files = append(files, pi.SDKFile{Path: "pi-sdk/" + f.Path, Data: f.Data})
			}
		}
	case "assemblyscript", "as":
		add("extension.yaml", scaffoldManifestAS)
		add("assembly/index.ts", scaffoldIndexAS)
		add("event.json", scaffoldEvent)
		add(".gitignore", scaffoldGitignore)
		files = append(files, pi.AssemblyScriptFiles(name)...)
	case "typescript", "ts":
		*lang = "typescript"
		add("index.ts", scaffoldTSIndex)
		add("pi-extension.d.ts", scaffoldTSTypes)
		add("package.json", scaffoldTSPackage)
		add("tsconfig.json", scaffoldTSConfig)
		add("event.json", scaffoldTSEvent)
		add(".gitignore", "node_modules/\n")
	default:
		return usagef("ext init: unknown --lang %q (want go, assemblyscript or typescript)", *lang)
	}
	var clash []string
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if _, err := os.Lstat(p); err == nil {
			clash = append(clash, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if len(clash) > 0 {
		return fmt.Errorf("refusing to overwrite %s", strings.Join(clash, ", "))
	}
	rel := a.relToWd(dir)
	sdkFiles := 0
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		// O_EXCL: never clobber a file that appeared since the check.
		fh, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, werr := fh.Write(f.Data)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
		if strings.HasPrefix(f.Path, "pi-sdk/") {
			sdkFiles++
			continue
		}
		fmt.Fprintf(a.stdout, "created %s\n", p)
	}
	if sdkFiles > 0 {
		fmt.Fprintf(a.stdout, "created %s (pi SDK %s, %d files)\n", filepath.Join(dir, "pi-sdk"), pi.SDKVersion(), sdkFiles)
	}
	if *lang == "typescript" {
		fmt.Fprintf(a.stdout, "\nNext:\n  cd %s\n  pi ext test --hook tool_call     (runs index.ts's hook with event.json)\n  pi -e . -p \"hello\"              (one run with it)\n  pi install .                      (load it in every run)\n", rel)
		return nil
	}
	fmt.Fprintf(a.stdout, "\nNext:\n  cd %s\n  pi ext build\n", rel)
	if *lang == "go" {
		fmt.Fprintf(a.stdout, "  go test\n")
	}
	fmt.Fprintf(a.stdout, "  pi ext test\n  pi ext install .\n")
	return nil
}

// insidePiModule reports whether dir lies inside pi's own module (an
// extension developed in the pi repository uses its packages directly).
func insidePiModule(dir string) bool {
	mod := findGoMod(dir)
	if mod == "" {
		return false
	}
	b, err := os.ReadFile(mod)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == "module github.com/piwasm/pi" {
			return true
		}
	}
	return false
}

// relToWd returns p relative to the working directory when it lies below
// it (for copy-pasteable hints), else p.
func (a *app) relToWd(p string) string {
	if r, err := filepath.Rel(a.wd, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		if r == "." {
			return "."
		}
		return "." + string(filepath.Separator) + r
	}
	return p
}

// findGoMod returns the go.mod governing dir, or "".
func findGoMod(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "go.mod")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
