package abi

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ErrBadEnvelope reports output that is not a well-formed Envelope.
var ErrBadEnvelope error = constError("bad envelope")

// constError is an error that is a constant: the package's error values
// are set by the linker rather than by code at start-up (errors.New would
// give the package an initialiser to run in every pi process).
type constError string

func (e constError) Error() string { return string(e) }

// GuestError is an error the guest reported inside its envelope.
type GuestError struct{ Message string }

func (e *GuestError) Error() string { return e.Message }

// EncodeResult returns the envelope {"result": v}.
func EncodeResult(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(Envelope{Result: b})
}

// EncodeError returns the envelope {"error": msg}. An empty msg becomes
// "error".
func EncodeError(msg string) []byte {
	if msg == "" {
		msg = "error"
	}
	b, _ := json.Marshal(Envelope{Error: msg})
	return b
}

// DecodeEnvelope decodes an envelope and its result into v (v may be nil to
// ignore the result). It returns a *GuestError when the guest reported an
// error, and an error wrapping ErrBadEnvelope when data is not exactly one
// JSON object holding a result or an error, or when the result does not
// decode into v. A "result" of null leaves v unchanged.
func DecodeEnvelope(data []byte, v any) error {
	var env Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		return fmt.Errorf("%w: %v", ErrBadEnvelope, err)
	}
	if env.Error != "" {
		if len(env.Result) > 0 && !bytes.Equal(env.Result, []byte("null")) {
			return fmt.Errorf("%w: both result and error set", ErrBadEnvelope)
		}
		return &GuestError{Message: env.Error}
	}
	if len(env.Result) == 0 {
		return fmt.Errorf("%w: neither result nor error set", ErrBadEnvelope)
	}
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(env.Result, v); err != nil {
		return fmt.Errorf("%w: result: %v", ErrBadEnvelope, err)
	}
	return nil
}
