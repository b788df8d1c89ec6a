package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/hooks"
)

// Handler adapts a loaded extension to the hooks dispatcher. With a
// non-nil store, the results of an extension that is a pure function of its
// inputs (no network, environment, clock or randomness granted) are
// memoised: the files it reads count as inputs, so an unchanged project
// need not run, or even compile, the guest at all.
func Handler(e *Extension, store hooks.MemoStore) hooks.Handler {
	var inner hooks.Handler = handler{e: e, noMemo: store == nil}
	inner = hooks.Memoize(inner, store)
	return fileServer{Handler: inner, e: e}
}

type handler struct {
	e *Extension
	// noMemo: there is no memo store, so every extension that runs each
	// turn will have to start.
	noMemo bool
}

func (h handler) Name() string                { return h.e.Name() }
func (h handler) Handles(hook string) bool    { return h.e.Handles(hook) }
func (h handler) FailurePolicy() string       { return h.e.Failure() }
func (h handler) Commands() []abi.CommandInfo { return h.e.Commands() }

// MemoIdentity names the extension, its module, configuration, limits and
// the files it may read; it is pure unless it was granted anything that makes its results
// depend on more than its inputs.
func (h handler) MemoIdentity() (string, bool) {
	c := h.e.Granted()
	// An extension with tools is never memoised: a tool call runs in the
	// same instance outside the memo layer, so the history a stored result
	// depends on would be incomplete.
	// One that can ask the person (imports a pi_ui_* function) is not
	// either: the answer is an input the memo layer cannot see.
	pure := len(c.Network) == 0 && len(c.Env) == 0 && !c.Clock && !c.Random && len(h.e.Manifest().Tools) == 0 && !h.e.asksUser()
	// Everything that can change a result is in the identity: the code,
	// its configuration, what it may read, and the limits its output was
	// checked against (and the name, so no result crosses extensions).
	id, err := json.Marshal(struct {
		ABI    int
		Name   string
		SHA256 string
		Config json.RawMessage
		Flags  json.RawMessage `json:",omitempty"`
		Files  []string
		Limits abi.Limits
	}{abi.Version, h.e.Name(), h.e.SHA256(), h.e.config, h.e.flags, c.Files, h.e.Limits()})
	if err != nil {
		return "", false
	}
	sum := sha256.Sum256(id)
	return hex.EncodeToString(sum[:]), pure
}

// missed is called when a pure extension has to run: behind the memo layer
// that means its stored result did not apply. One miss is usually an
// extension that reads the user's input; a second one in the same run
// suggests the project changed for everyone, so the rest are made ready in
// the background. Without a memo store every one of them has to run, so
// that starts at the first call.
func (h handler) missed() {
	if h.noMemo {
		h.e.rt.Prewarm(context.WithoutCancel(context.Background()))
		return
	}
	if _, pure := h.MemoIdentity(); pure && h.e.rt.misses.Add(1) == 2 {
		h.e.rt.Prewarm(context.WithoutCancel(context.Background()))
	}
}

func (h handler) BeforeAgentStart(ctx context.Context, ev abi.BeforeAgentStartEvent, fetch hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	h.missed()
	return h.e.BeforeAgentStart(ctx, ev, hooks.Fetcher(fetch))
}

func (h handler) Assemble(ctx context.Context, ev abi.AssembleEvent, fetch hooks.Fetcher) (abi.AssembleResult, error) {
	h.missed()
	return h.e.AssembleWith(ctx, ev, hooks.Fetcher(fetch))
}

func (h handler) Input(ctx context.Context, ev abi.InputEvent, fetch hooks.Fetcher) (abi.InputResult, error) {
	return h.e.InputWith(ctx, ev, hooks.Fetcher(fetch))
}

func (h handler) Command(ctx context.Context, ev abi.CommandEvent, fetch hooks.Fetcher) (abi.CommandResult, error) {
	return h.e.CommandWith(ctx, ev, hooks.Fetcher(fetch))
}

// fileServer answers the host's "file:" fetches with the granted file's
// record, outside the memo layer, so that the memo layer sees each file a
// guest read as one of its inputs.
type fileServer struct {
	hooks.Handler
	e *Extension
}

// WantsInput applies the manifest's inputPrefixes.
func (f fileServer) WantsInput(input string) bool {
	m := f.e.Manifest()
	return m.WantsInput(input)
}

func (f fileServer) serve(fetch hooks.Fetcher) hooks.Fetcher {
	return func(key string) ([]byte, bool) {
		if p, ok := strings.CutPrefix(key, fileKeyPrefix); ok {
			return f.e.FileRecord(p), true
		}
		if fetch == nil {
			return nil, false
		}
		return fetch(key)
	}
}

func (f fileServer) BeforeAgentStart(ctx context.Context, ev abi.BeforeAgentStartEvent, fetch hooks.Fetcher) (abi.BeforeAgentStartResult, error) {
	return f.Handler.BeforeAgentStart(ctx, ev, f.serve(fetch))
}

func (f fileServer) Assemble(ctx context.Context, ev abi.AssembleEvent, fetch hooks.Fetcher) (abi.AssembleResult, error) {
	return f.Handler.Assemble(ctx, ev, f.serve(fetch))
}

func (f fileServer) Input(ctx context.Context, ev abi.InputEvent, fetch hooks.Fetcher) (abi.InputResult, error) {
	return f.Handler.Input(ctx, ev, f.serve(fetch))
}

func (f fileServer) Command(ctx context.Context, ev abi.CommandEvent, fetch hooks.Fetcher) (abi.CommandResult, error) {
	return f.Handler.Command(ctx, ev, f.serve(fetch))
}

// CompleteCommand completes a command's argument (see
// Extension.CompleteCommand); never memoised, as it runs while the person
// types and its answer is thrown away with the next key.
func (f fileServer) CompleteCommand(ctx context.Context, ev abi.CommandCompleteEvent) (abi.CommandCompleteResult, error) {
	return f.e.CompleteCommand(ctx, ev)
}
