package host

import (
	"context"
	"strings"

	extism "github.com/extism/go-sdk"
	"github.com/piwasm/pi/abi"
	"github.com/tetratelabs/wazero/api"
)

// maxKeyLen bounds keys, paths and log lines read from guest memory.
const (
	maxKeyLen   = 4096
	maxLogLen   = 16 << 10
	maxLogLines = 1000
)

// hostFunctions returns the pi host functions bound to e. They run only
// inside a call (e.call set, e.mu held by invoke) or during the warm-up
// call, when they answer "not found".
func (e *Extension) hostFunctions() []extism.HostFunction {
	i32, i64 := extism.ValueTypeI32, extism.ValueTypeI64
	fns := []extism.HostFunction{
		extism.NewHostFunctionWithStack(abi.HostFetch, e.hostFetch, []extism.ValueType{i32, i32, i32, i32}, []extism.ValueType{i64}),
		extism.NewHostFunctionWithStack(abi.HostOutput, e.hostOutput, []extism.ValueType{i32, i32}, nil),
		extism.NewHostFunctionWithStack(abi.HostLog, e.hostLog, []extism.ValueType{i32, i32, i32}, nil),
		extism.NewHostFunctionWithStack(abi.HostReadFile, e.hostReadFile, []extism.ValueType{i32, i32, i32, i32}, []extism.ValueType{i64}),
	}
	for i := range fns {
		fns[i].SetNamespace(abi.HostModule)
	}
	return fns
}

// guestMem returns the memory of the instance in use.
func (e *Extension) guestMem() api.Memory {
	if e.inst == nil {
		return nil
	}
	return e.inst.mem
}

// readGuest reads n bytes at ptr from guest memory as a string (a copy).
func readGuest(mem api.Memory, ptr, n uint32, max uint32) (string, bool) {
	if mem == nil || n > max {
		return "", false
	}
	if n == 0 {
		return "", true
	}
	b, ok := mem.Read(ptr, n)
	if !ok {
		return "", false
	}
	return string(b), true
}

// deliver copies val into guest memory at dst when it fits in dstCap and
// returns its length (or the length needed without copying).
func deliver(mem api.Memory, val []byte, dst, dstCap uint32) int64 {
	if int64(len(val)) > int64(dstCap) {
		return int64(len(val))
	}
	if len(val) > 0 && !mem.Write(dst, val) {
		return abi.ErrInvalid
	}
	return int64(len(val))
}

func (e *Extension) hostFetch(_ context.Context, _ *extism.CurrentPlugin, stack []uint64) {
	stack[0] = api.EncodeI64(e.fetch(uint32(stack[0]), uint32(stack[1]), uint32(stack[2]), uint32(stack[3])))
}

func (e *Extension) fetch(kp, kl, dst, dstCap uint32) int64 {
	mem, cs := e.guestMem(), e.call
	key, ok := readGuest(mem, kp, kl, maxKeyLen)
	if !ok || key == "" {
		return abi.ErrInvalid
	}
	if cs == nil {
		return abi.ErrNotFound
	}
	if strings.HasPrefix(key, fileKeyPrefix) {
		// File reads go through pi_read_file and its grant checks only.
		return abi.ErrDenied
	}
	var val []byte
	switch key {
	case abi.KeyEvent:
		val = cs.event
	case abi.KeyConfig:
		val = e.config
	default:
		if cs.fetch == nil {
			return abi.ErrNotFound
		}
		v, seen := cs.fetched[key]
		if !seen {
			var found bool
			v, found = cs.fetch(key)
			if !found {
				v = nil
			} else if v == nil {
				v = []byte{}
			}
			if cs.fetched == nil {
				cs.fetched = map[string][]byte{}
			}
			cs.fetched[key] = v
		}
		if v == nil {
			return abi.ErrNotFound
		}
		val = v
	}
	return deliver(mem, val, dst, dstCap)
}

func (e *Extension) hostOutput(_ context.Context, _ *extism.CurrentPlugin, stack []uint64) {
	mem, cs := e.guestMem(), e.call
	ptr, n := uint32(stack[0]), uint32(stack[1])
	if cs == nil || mem == nil {
		return
	}
	cs.outputSet = true
	cs.outputLen = int(n)
	if int(n) > cs.maxOutput {
		cs.tooLarge, cs.out = true, nil
		return
	}
	b, ok := mem.Read(ptr, n)
	if !ok {
		cs.out = nil // reported as a bad envelope
		return
	}
	cs.tooLarge = false
	cs.out = append(cs.out[:0], b...)
}

func (e *Extension) hostLog(_ context.Context, _ *extism.CurrentPlugin, stack []uint64) {
	mem := e.guestMem()
	level, ptr, n := int32(stack[0]), uint32(stack[1]), uint32(stack[2])
	if !e.logAllowed(e.inst) {
		return
	}
	msg, ok := readGuest(mem, ptr, min(n, maxLogLen), maxLogLen)
	if !ok {
		return
	}
	e.rt.log(e.Name(), abi.LogLevelName(level), msg)
}

// logAllowed counts one log line against the budget of the call in
// progress (or, outside calls, of the instance) and reports whether it may
// be written.
func (e *Extension) logAllowed(inst *instance) bool {
	if cs := e.call; cs != nil {
		cs.logLines++
		return cs.logLines <= maxLogLines
	}
	if inst == nil {
		return false
	}
	inst.logLines++
	return inst.logLines <= maxLogLines
}

func (e *Extension) hostReadFile(_ context.Context, _ *extism.CurrentPlugin, stack []uint64) {
	stack[0] = api.EncodeI64(e.readFile(uint32(stack[0]), uint32(stack[1]), uint32(stack[2]), uint32(stack[3])))
}

func (e *Extension) readFile(pp, pl, dst, dstCap uint32) int64 {
	mem, cs := e.guestMem(), e.call
	p, ok := readGuest(mem, pp, pl, maxKeyLen)
	if !ok {
		return abi.ErrInvalid
	}
	if cs == nil {
		return abi.ErrDenied
	}
	if cs.file != p || cs.fileData == nil {
		data, code := e.readForCall(cs, p)
		if code < 0 {
			return code
		}
		cs.file, cs.fileData = p, data
	}
	return deliver(mem, cs.fileData, dst, dstCap)
}

// fileKeyPrefix marks a file read in a call's FetchFunc. The host asks the
// fetcher for "file:<path>" before reading a granted file itself, so that a
// caller can observe (and memoise on) the files a guest read. The value is
// a FileRecord. Guests cannot fetch these keys.
const fileKeyPrefix = "file:"

// FileRecord encodes the outcome of reading a granted file: the status
// byte 0 followed by the contents, or a negative abi error code.
func (e *Extension) FileRecord(path string) []byte {
	data, code := readGranted(e.rt.root, e.caps.Files, path, int64(e.limits.OutputKiB)<<10)
	if code < 0 {
		return []byte{byte(-code)}
	}
	return append([]byte{0}, data...)
}

func (e *Extension) readForCall(cs *callState, path string) ([]byte, int64) {
	if cs.fetch != nil {
		if rec, ok := cs.fetch(fileKeyPrefix + path); ok && len(rec) > 0 {
			if rec[0] != 0 {
				return nil, -int64(rec[0])
			}
			return rec[1:], 0
		}
	}
	return readGranted(e.rt.root, e.caps.Files, path, int64(e.limits.OutputKiB)<<10)
}
