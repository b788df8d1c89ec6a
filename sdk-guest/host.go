//go:build wasip1

package sdk

import (
	"errors"
	"runtime"
	"unsafe"
)

//go:wasmimport extism:host/user pi_fetch
func piFetch(keyPtr, keyLen, dstPtr, dstCap uint32) int64

//go:wasmimport extism:host/user pi_output
func piOutput(ptr, length uint32)

//go:wasmimport extism:host/user pi_log
func piLog(level int32, ptr, length uint32)

//go:wasmimport extism:host/user pi_read_file
func piReadFile(pathPtr, pathLen, dstPtr, dstCap uint32) int64

// scratch is the receive buffer reused across calls; it is released when a
// call needed more than scratchKeep bytes.
var scratch = make([]byte, 16<<10)

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
	return nil, errors.New("value keeps growing")
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

// receiveNew asks for the value's size, then has the host write it
// straight into a new buffer of that size: one copy, no scratch.
func receiveNew(call func(dst, dstCap uint32) int64) ([]byte, error) {
	n := call(0, 0)
	for attempt := 0; attempt < 3; attempt++ {
		if n < 0 {
			return nil, CodeError(n)
		}
		if n == 0 {
			return []byte{}, nil
		}
		buf := make([]byte, n)
		m := call(bufPtr(buf), uint32(n))
		runtime.KeepAlive(buf)
		if m == n {
			return buf, nil
		}
		n = m // the value changed size between the calls
	}
	return nil, errors.New("value keeps changing size")
}

// Fetch returns the value the host holds for key for the current call:
// abi.KeyConfig, abi.KeySkills, abi.KeySystemPrompt, abi.KeyContextPrefix +
// path, abi.KeySectionPrefix + name. An unknown or unavailable key gives
// ErrNotFound. The host writes the value straight into the returned slice
// (one copy).
func Fetch(key string) ([]byte, error) {
	kp, kl := strPtr(key)
	b, err := receiveNew(func(dst, dstCap uint32) int64 { return piFetch(kp, kl, dst, dstCap) })
	runtime.KeepAlive(key)
	return b, err
}

// FetchInto is Fetch into dst's storage: the value is written straight
// into dst (grown when too small) and returned as dst[:len]. Reusing one
// buffer across calls avoids an allocation per call for large values.
func FetchInto(dst []byte, key string) ([]byte, error) {
	kp, kl := strPtr(key)
	for attempt := 0; attempt < 3; attempt++ {
		n := piFetch(kp, kl, bufPtr(dst[:cap(dst)]), uint32(cap(dst)))
		if n < 0 {
			return dst[:0], CodeError(n)
		}
		if n <= int64(cap(dst)) {
			runtime.KeepAlive(key)
			return dst[:n], nil
		}
		dst = make([]byte, n)
	}
	return dst[:0], errors.New("value keeps growing")
}

// ReadFile reads a file of the project through the host. path is relative
// to the project root, slash-separated, and must match one of the globs the
// manifest requested under capabilities.files and the user granted.
// Otherwise it fails with ErrDenied (outside the grant or the project),
// ErrNotFound, ErrInvalid (malformed path) or ErrIO.
func ReadFile(path string) ([]byte, error) {
	pp, pl := strPtr(path)
	b, err := receiveNew(func(dst, dstCap uint32) int64 { return piReadFile(pp, pl, dst, dstCap) })
	runtime.KeepAlive(path)
	if err != nil {
		return nil, wrap("read "+path, err)
	}
	return b, nil
}

// Log sends a line to the host's log, tagged with the extension's name.
// level is one of abi.LogDebug, abi.LogInfo, abi.LogWarn, abi.LogError.
func Log(level int32, msg string) {
	p, l := strPtr(msg)
	piLog(level, p, l)
	runtime.KeepAlive(msg)
}

func output(b []byte) {
	if len(b) == 0 {
		piOutput(0, 0)
		return
	}
	piOutput(bufPtr(b), uint32(len(b)))
	runtime.KeepAlive(b)
}

// yield lets the guest's garbage collector run: a standard-Go guest only
// runs it when the scheduler gets a chance; without this yield the heap
// grows from call to call until the memory cap.
func yield() { runtime.Gosched() }
