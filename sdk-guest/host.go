//go:build wasip1

package sdk

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/piwasm/pi/abi"
)

//go:wasmimport extism:host/user pi_fetch
func piFetch(keyPtr, keyLen, dstPtr, dstCap uint32) int64

//go:wasmimport extism:host/user pi_output
func piOutput(ptr, length uint32)

//go:wasmimport extism:host/user pi_log
func piLog(level int32, ptr, length uint32)

//go:wasmimport extism:host/user pi_read_file
func piReadFile(pathPtr, pathLen, dstPtr, dstCap uint32) int64

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

// scratch is the receive buffer reused across calls; it is released when a
// call needed more than scratchKeep bytes.
var scratch = make([]byte, 16<<10)

const scratchKeep = 1 << 20

func strPtr(s string) (uint32, uint32) {
	if s == "" {
		return 0, 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.StringData(s)))), uint32(len(s))
}

func bufPtr(b []byte) uint32 {
	if cap(b) == 0 {
		return 0
	}
	return uint32(uintptr(unsafe.Pointer(unsafe.SliceData(b[:1]))))
}

// receive calls a pi_fetch-style host function into the scratch buffer,
// growing it once when the value does not fit. The returned slice aliases
// scratch and is valid until the next receive.
func receive(call func(dst, dstCap uint32) int64) ([]byte, error) {
	for attempt := 0; attempt < 3; attempt++ {
		n := call(bufPtr(scratch), uint32(cap(scratch)))
		if n < 0 {
			return nil, CodeError(n)
		}
		if n <= int64(cap(scratch)) {
			return scratch[:n], nil
		}
		scratch = make([]byte, n)
	}
	return nil, fmt.Errorf("value keeps growing")
}

func releaseScratch() {
	if cap(scratch) > scratchKeep {
		scratch = make([]byte, 16<<10)
	}
}

func fetchInto(key string) ([]byte, error) {
	kp, kl := strPtr(key)
	b, err := receive(func(dst, dstCap uint32) int64 { return piFetch(kp, kl, dst, dstCap) })
	runtime.KeepAlive(key)
	return b, err
}

// Fetch returns the value the host holds for key for the current call:
// abi.KeyConfig, abi.KeySkills, abi.KeySystemPrompt, abi.KeyContextPrefix +
// path, abi.KeySectionPrefix + name. An unknown or unavailable key gives
// ErrNotFound. The value is copied once from the host into guest memory.
func Fetch(key string) ([]byte, error) {
	b, err := fetchInto(key)
	if err != nil {
		return nil, err
	}
	out := make([]byte, len(b))
	copy(out, b)
	releaseScratch()
	return out, nil
}

// ReadFile reads a file of the project through the host. path is relative
// to the project root, slash-separated, and must match one of the globs the
// manifest requested under capabilities.files and the user granted.
// Otherwise it fails with ErrDenied (outside the grant or the project),
// ErrNotFound, ErrInvalid (malformed path) or ErrIO.
func ReadFile(path string) ([]byte, error) {
	pp, pl := strPtr(path)
	b, err := receive(func(dst, dstCap uint32) int64 { return piReadFile(pp, pl, dst, dstCap) })
	runtime.KeepAlive(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	out := make([]byte, len(b))
	copy(out, b)
	releaseScratch()
	return out, nil
}

// Log sends a line to the host's log, tagged with the extension's name.
// level is one of abi.LogDebug, abi.LogInfo, abi.LogWarn, abi.LogError.
func Log(level int32, msg string) {
	p, l := strPtr(msg)
	piLog(level, p, l)
	runtime.KeepAlive(msg)
}

// Logf formats and logs at abi.LogInfo.
func Logf(format string, args ...any) { Log(abi.LogInfo, fmt.Sprintf(format, args...)) }

func output(b []byte) {
	if len(b) == 0 {
		piOutput(0, 0)
		return
	}
	piOutput(bufPtr(b), uint32(len(b)))
	runtime.KeepAlive(b)
}
