package host

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
)

// secReviewGuestSrc is a raw-ABI guest (standard library only) used by the
// review tests. It is built once, into wasmDir/secreview.wasm, so that pkg(t,
// "secreview", …) works like the TestMain fixtures.
//
//	before_agent_start  fetches "input" and remembers it in a global; no ops
//	system-prompt/assemble  sets section "remembered" to what it remembered
//	                    (it fetches nothing)
//	input               reads allowed.txt through pi_read_file and
//	                    transforms the input into its content
//	command /peek       reads allowed.txt and shows its content
const secReviewGuestSrc = `//go:build wasip1

package main

import (
	"encoding/json"
	"runtime"
	"unsafe"
)

//go:wasmimport extism:host/user pi_fetch
func piFetch(kp, kl, dp, dc uint32) int64

//go:wasmimport extism:host/user pi_read_file
func piReadFile(pp, pl, dp, dc uint32) int64

//go:wasmimport extism:host/user pi_output
func piOutput(p, l uint32)

var buf = make([]byte, 1<<16)

func call(f func(a, b, c, d uint32) int64, key string) (string, bool) {
	k := []byte(key)
	n := f(uint32(uintptr(unsafe.Pointer(&k[0]))), uint32(len(k)), uint32(uintptr(unsafe.Pointer(&buf[0]))), uint32(len(buf)))
	if n < 0 || n > int64(len(buf)) {
		return "", false
	}
	return string(buf[:n]), true
}

func result(v any) {
	b, _ := json.Marshal(map[string]any{"result": v})
	piOutput(uint32(uintptr(unsafe.Pointer(&b[0]))), uint32(len(b)))
	runtime.Gosched()
}

var remembered = "nothing yet"

//go:wasmexport pi_abi_version
func abiVersion() int32 { return 1 }

//go:wasmexport pi_before_agent_start
func beforeAgentStart() int32 {
	if s, ok := call(piFetch, "input"); ok {
		remembered = s
	}
	result(map[string]any{})
	return 0
}

//go:wasmexport pi_assemble
func assemble() int32 {
	result(map[string]any{"ops": []any{map[string]any{"op": "set_section", "name": "remembered", "text": remembered}}})
	return 0
}

//go:wasmexport pi_input
func input() int32 {
	s, ok := call(piReadFile, "allowed.txt")
	if !ok {
		result(map[string]any{"action": "continue"})
		return 0
	}
	result(map[string]any{"action": "transform", "text": s})
	return 0
}

//go:wasmexport pi_command
func command() int32 {
	s, _ := call(piReadFile, "allowed.txt")
	result(map[string]any{"show": s})
	return 0
}

func main() {}
`

var (
	secReviewOnce sync.Once
	secReviewErr  error
)

// secReviewGuest builds the review guest once (into wasmDir/secreview.wasm).
func secReviewGuest(t testing.TB) {
	t.Helper()
	secReviewOnce.Do(func() {
		src, err := os.MkdirTemp("", "pi-review-guest-")
		if err != nil {
			secReviewErr = err
			return
		}
		defer os.RemoveAll(src)
		if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module reviewguest\n\ngo 1.24\n"), 0o644); err != nil {
			secReviewErr = err
			return
		}
		if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(secReviewGuestSrc), 0o644); err != nil {
			secReviewErr = err
			return
		}
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", filepath.Join(wasmDir, "secreview.wasm"), ".")
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOFLAGS=", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			secReviewErr = err
			t.Logf("%s", out)
		}
	})
	if secReviewErr != nil {
		t.Fatalf("build review guest: %v", secReviewErr)
	}
}

const secReviewManifest = `name: secreview
abi: 1
hooks: [before_agent_start, system-prompt/assemble, input, command]
commands:
  - name: peek
capabilities:
  files: [allowed.txt]
limits:
  timeoutMs: 5000
`

// secReviewRuntime returns a runtime over its own project directory (so that
// the tests may change files without disturbing the shared fixture).
func secReviewRuntime(t *testing.T, root string) *Runtime {
	t.Helper()
	rt, err := NewRuntime(context.Background(), Config{AgentDir: agentDir, ProjectRoot: root, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close(context.Background()) })
	return rt
}

func secReviewLoad(t *testing.T, rt *Runtime, grants Grants, dir string) *Extension {
	t.Helper()
	exts, diags := rt.Load(context.Background(), []string{dir}, grants)
	for _, d := range diags {
		if d.Kind != DiagGrant {
			t.Fatalf("diagnostic: %s", d)
		}
	}
	if len(exts) != 1 {
		t.Fatalf("not loaded: %v", diags)
	}
	return exts[0]
}

// Review: the input hook's result was memoised without the files the
// guest read through pi_read_file, so after the file changed the next run
// was served the stale result. Each run is a fresh runtime over one store,
// as pi runs are (within one handler the call history is part of the key,
// which would hide the bug).
func TestReviewMemoInputHookFollowsReadFiles(t *testing.T) {
	secReviewGuest(t)
	ctx := context.Background()
	root := t.TempDir()
	file := filepath.Join(root, "allowed.txt")
	dir := pkg(t, "secreview", secReviewManifest)
	grants := Grants{"secreview": {Files: []string{"allowed.txt"}}}
	store := &hooks.MemoryStore{}
	run := func(content string) string {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		h := Handler(secReviewLoad(t, secReviewRuntime(t, root), grants, dir), store)
		res, err := h.Input(ctx, abi.InputEvent{Text: "hello"}, nil)
		if err != nil || res.Action != abi.ActionTransform {
			t.Fatalf("input hook: %+v %v", res, err)
		}
		return res.Text
	}
	if got := run("first"); got != "first" {
		t.Fatalf("first run: %q", got)
	}
	if got := run("first"); got != "first" {
		t.Fatalf("unchanged file: %q", got)
	}
	if got := run("second"); got != "second" {
		t.Fatalf("memoised input hook served %q after allowed.txt changed to %q", got, "second")
	}
}

// Review: the same for slash commands.
func TestReviewMemoCommandFollowsReadFiles(t *testing.T) {
	secReviewGuest(t)
	ctx := context.Background()
	root := t.TempDir()
	file := filepath.Join(root, "allowed.txt")
	dir := pkg(t, "secreview", secReviewManifest)
	grants := Grants{"secreview": {Files: []string{"allowed.txt"}}}
	store := &hooks.MemoryStore{}
	run := func(content string) string {
		t.Helper()
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		h := Handler(secReviewLoad(t, secReviewRuntime(t, root), grants, dir), store)
		res, err := h.Command(ctx, abi.CommandEvent{Name: "peek", Cwd: root}, nil)
		if err != nil {
			t.Fatalf("command: %v", err)
		}
		return res.Show
	}
	if got := run("first"); got != "first" {
		t.Fatalf("first run: %q", got)
	}
	if got := run("first"); got != "first" {
		t.Fatalf("unchanged file: %q", got)
	}
	if got := run("second"); got != "second" {
		t.Fatalf("memoised command served %q after allowed.txt changed to %q", got, "second")
	}
}

// Review: a guest with no grants is treated as a pure function of each
// call's inputs, but its instance lives across calls (and across hooks) and
// keeps state. Here before_agent_start fetches the user's input (recorded
// for that call) and system-prompt/assemble emits it without fetching
// anything, so the assemble result is stored as depending on the assemble
// event alone. On the next run (fresh extension, same on-disk store) the
// input changed: before_agent_start misses and runs, but assemble hits and
// serves the previous run's input, which the guest no longer holds.
func TestReviewMemoStateCarriedAcrossHooks(t *testing.T) {
	secReviewGuest(t)
	ctx := context.Background()
	root := t.TempDir()
	dir := pkg(t, "secreview", secReviewManifest)
	store := NewDirStore(filepath.Join(t.TempDir(), "memo"))
	aev := abi.AssembleEvent{Sections: []abi.Section{{Name: "preamble", Text: "You are pi."}}}

	turn := func(input string) (string, string) {
		t.Helper()
		rt := secReviewRuntime(t, root) // one pi run
		e := secReviewLoad(t, rt, nil, dir)
		h := Handler(e, store)
		if _, err := h.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, func(k string) ([]byte, bool) {
			if k == abi.KeyInput {
				return []byte(input), true
			}
			return nil, false
		}); err != nil {
			t.Fatal(err)
		}
		memoised := ""
		res, err := h.Assemble(ctx, aev, nil)
		if err != nil || len(res.Ops) != 1 {
			t.Fatalf("assemble: %+v %v", res, err)
		}
		memoised = res.Ops[0].Text
		// What the guest itself answers in this run, without the memo.
		direct, err := e.Assemble(ctx, aev)
		if err != nil || len(direct.Ops) != 1 {
			t.Fatalf("direct assemble: %+v %v", direct, err)
		}
		return memoised, direct.Ops[0].Text
	}
	if got, _ := turn("first input"); got != "first input" {
		t.Fatalf("run 1: %q", got)
	}
	got, guest := turn("second input")
	if guest != "second input" {
		t.Fatalf("control: the guest answers %q in run 2", guest)
	}
	if got != guest {
		t.Fatalf("run 2: memo served %q for assemble while the guest answers %q (state from an earlier hook is not a recorded input)", got, guest)
	}
}

// Review: the memo identity (host/hooks_handler.go MemoIdentity) covers the
// module, its config and its file grants but not the manifest's limits. A
// result stored while the output limit allowed it is served to an extension
// (another package with the same module and config, or the same package
// after its manifest lowered outputKiB) whose own call would be rejected as
// output-too-large. With failure: abort that call would stop the run.
func TestReviewMemoIgnoresOutputLimit(t *testing.T) {
	ctx := context.Background()
	text := strings.Repeat("Review every change before it lands. ", 100) // ~3.7 KiB
	cfg := "config:\n  text: \"" + text + "\"\n"
	big := pkg(t, "team-section", "name: team-section\nabi: 1\nhooks: [before_agent_start]\n"+cfg)
	small := pkg(t, "team-section", "name: team-section\nabi: 1\nhooks: [before_agent_start]\nlimits:\n  outputKiB: 1\n"+cfg)
	store := &hooks.MemoryStore{}

	eBig := load(t, nil, big)[0]
	if _, err := Handler(eBig, store).BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil); err != nil {
		t.Fatal(err)
	}
	eSmall := load(t, nil, small)[0]
	// Control: the guest's own call is over the limit.
	if _, err := eSmall.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil); err == nil {
		t.Fatal("control: expected output-too-large without the memo")
	}
	res, err := Handler(eSmall, store).BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{}, nil)
	if err == nil {
		t.Fatalf("memo served a %d-byte result to an extension limited to 1 KiB of output", len(res.Ops[0].Text))
	}
}
