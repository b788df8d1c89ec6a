package host

import (
	"fmt"
)

// Cause classifies a failed call.
type Cause string

const (
	// CauseTimeout: the call ran past its deadline and was stopped.
	CauseTimeout Cause = "timeout"
	// CauseCanceled: the caller's context was canceled during the call.
	CauseCanceled Cause = "canceled"
	// CauseTrap: the guest trapped, panicked outside the SDK's recovery,
	// exited, returned a non-zero code or a host function refused it (for
	// example an HTTP request to a host that was not granted).
	CauseTrap Cause = "trap"
	// CauseMemory: the guest ran out of memory under its cap.
	CauseMemory Cause = "memory"
	// CauseOutputTooLarge: the envelope exceeded the output limit.
	CauseOutputTooLarge Cause = "output-too-large"
	// CauseBadEnvelope: the output is not a well-formed envelope, or its
	// result does not decode into the hook's result type.
	CauseBadEnvelope Cause = "bad-envelope"
	// CauseGuestError: the guest reported an error inside its envelope.
	CauseGuestError Cause = "guest-error"
	// CauseInvalidResult: the result decoded but is not valid for the hook
	// (an op the hook does not accept, a bad section name, an unknown
	// input action).
	CauseInvalidResult Cause = "invalid-result"
	// CauseUnavailable: no instance could be created, or the extension is
	// closed.
	CauseUnavailable Cause = "unavailable"
)

// Retires reports whether a call failing with this cause retires the
// instance it ran on.
func (c Cause) Retires() bool {
	switch c {
	case CauseGuestError, CauseInvalidResult, CauseUnavailable:
		return false
	}
	return true
}

// CallError is the error of a failed extension call. Its message names the
// extension, the hook and the cause.
type CallError struct {
	Extension string
	Hook      string
	Cause     Cause
	Err       error
}

func (e *CallError) Error() string {
	msg := fmt.Sprintf("extension %q (%s): %s", e.Extension, e.Hook, e.Cause)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *CallError) Unwrap() error { return e.Err }

// Diagnostic kinds reported by Load (as diag.Diagnostic: Path is the
// manifest or the module, Extension the extension's name when known).
const (
	DiagManifest    = "manifest"    // extension.yaml missing, unreadable or invalid
	DiagModule      = "module"      // the .wasm file is missing or unreadable
	DiagCompile     = "compile"     // the module does not compile
	DiagInstantiate = "instantiate" // the module does not instantiate
	DiagABI         = "abi"         // the module reports an unsupported ABI version
	DiagExports     = "exports"     // an export needed by a declared hook is missing
	DiagDuplicate   = "duplicate"   // a second extension with the same name
	DiagGrant       = "grant"       // a requested capability is not granted, or a grant is stale
	DiagConfig      = "config"      // the user's config for the extension could not be applied
)
