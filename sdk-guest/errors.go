package sdk

import (
	"fmt"
	"unsafe"

	"github.com/piwasm/pi/abi"
)

// CodeError is a negative result of a host function (see abi.ErrNotFound
// and the other abi.Err* codes).
type CodeError int64

func (e CodeError) Error() string { return abi.ErrorCodeText(int64(e)) }

// Errors returned by Fetch and ReadFile; compare with errors.Is.
var (
	ErrNotFound error = CodeError(abi.ErrNotFound)
	ErrDenied   error = CodeError(abi.ErrDenied)
	ErrInvalid  error = CodeError(abi.ErrInvalid)
	ErrIO       error = CodeError(abi.ErrIO)
)

func fetchString(key string) (string, error) {
	b, err := Fetch(key)
	if err != nil || len(b) == 0 {
		return "", err
	}
	return unsafe.String(&b[0], len(b)), nil // b is never written again
}

// wrapErr is fmt.Errorf("%s: %w", msg, err) without fmt: the SDK stays
// free of fmt (and of the reflect and os it links) so that a guest which
// does not use fmt itself does not carry it. See docs/extensions.md,
// "Guest size".
type wrapErr struct {
	msg string
	err error
}

func (e *wrapErr) Error() string { return e.msg + ": " + e.err.Error() }
func (e *wrapErr) Unwrap() error { return e.err }

func wrap(msg string, err error) error { return &wrapErr{msg: msg, err: err} }

// Logf formats and logs at abi.LogInfo. It uses fmt, which adds about
// 0.4 MiB to a guest that does not already link it; Log with strconv
// does not.
func Logf(format string, args ...any) { Log(abi.LogInfo, fmt.Sprintf(format, args...)) }

// scratchKeep is the largest receive or envelope buffer kept between calls.
const scratchKeep = 1 << 20
