package host

import (
	"context"
	"fmt"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// maxKeyLen bounds keys, paths and log lines read from guest memory.
const (
	maxKeyLen   = 4096
	maxLogLen   = 16 << 10
	maxLogLines = 1000
)

// instantiateHost fills the extension's wazero runtime with the modules a
// guest may import (WASI, Extism's kernel, the pi host functions) and
// compiles the guest (or loads it from the compilation cache).
func (e *Extension) instantiateHost(ctx context.Context, rt wazero.Runtime, wasm []byte) (wazero.CompiledModule, error) {
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		return nil, fmt.Errorf("WASI: %w", err)
	}
	if err := e.defineKernel(ctx, rt); err != nil {
		return nil, fmt.Errorf("Extism kernel: %w", err)
	}
	if err := e.defineHostFunctions(ctx, rt); err != nil {
		return nil, fmt.Errorf("pi host functions: %w", err)
	}
	return rt.CompileModule(ctx, wasm)
}

// defineHostFunctions adds the pi host functions to the runtime. They run
// only inside a call (e.call set, e.mu held by invoke) or while an instance
// starts, when they answer "not found".
//
// The pi_* functions work on the calling module's own linear memory: one
// copy in each direction, no kernel bookkeeping. The pi_*_block functions
// are the same services in Extism's conventions (offsets of Extism memory
// blocks), for guests built with a stock PDK.
func (e *Extension) defineHostFunctions(ctx context.Context, rt wazero.Runtime) error {
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	b := rt.NewHostModuleBuilder(abi.HostModule)
	def := func(name string, f api.GoModuleFunc, params, results []api.ValueType) {
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) {
			e.countHostCall()
			f(ctx, m, s)
		}), params, results).Export(name)
	}
	def(abi.HostFetch, func(_ context.Context, m api.Module, s []uint64) {
		s[0] = api.EncodeI64(e.fetch(m.Memory(), uint32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3])))
	}, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i64})
	def(abi.HostReadFile, func(_ context.Context, m api.Module, s []uint64) {
		s[0] = api.EncodeI64(e.readFile(m.Memory(), uint32(s[0]), uint32(s[1]), uint32(s[2]), uint32(s[3])))
	}, []api.ValueType{i32, i32, i32, i32}, []api.ValueType{i64})
	def(abi.HostOutput, e.hostOutput, []api.ValueType{i32, i32}, nil)
	def(abi.HostLog, e.hostLog, []api.ValueType{i32, i32, i32}, nil)
	def(abi.HostFetchBlock, func(_ context.Context, _ api.Module, s []uint64) {
		s[0] = api.EncodeI64(e.blockCall(s[0], e.fetchValue))
	}, []api.ValueType{i64}, []api.ValueType{i64})
	def(abi.HostReadFileBlock, func(_ context.Context, _ api.Module, s []uint64) {
		s[0] = api.EncodeI64(e.blockCall(s[0], e.readFileValue))
	}, []api.ValueType{i64}, []api.ValueType{i64})
	def(abi.HostToolUpdate, func(_ context.Context, m api.Module, s []uint64) {
		ptr, n := uint32(s[0]), uint32(s[1])
		var b []byte
		ok := n <= uint32(e.limits.OutputKiB)<<10
		if ok && n > 0 {
			b, ok = m.Memory().Read(ptr, n)
		}
		e.toolUpdate(b, ok)
	}, []api.ValueType{i32, i32}, nil)
	def(abi.HostToolUpdateBlock, func(_ context.Context, _ api.Module, s []uint64) {
		var b []byte
		ok := false
		if k := e.kernel(); k != nil {
			b, ok = k.block(s[0])
		}
		e.toolUpdate(b, ok && len(b) <= e.limits.OutputKiB<<10)
	}, []api.ValueType{i64}, nil)
	for _, f := range []struct {
		name, block, kind string
		dst               bool
	}{
		{abi.HostUISelect, abi.HostUISelectBlock, AskSelect, true},
		{abi.HostUIInput, abi.HostUIInputBlock, AskInput, true},
		{abi.HostUIConfirm, abi.HostUIConfirmBlock, AskConfirm, false},
		{abi.HostUINotify, abi.HostUINotifyBlock, AskNotify, false},
		{abi.HostUIEditor, abi.HostUIEditorBlock, AskEditor, true},
		{abi.HostUIStatus, abi.HostUIStatusBlock, AskStatus, false},
		{abi.HostUITitle, abi.HostUITitleBlock, AskTitle, false},
		{abi.HostUIEditorText, abi.HostUIEditorTextBlock, AskEditorText, false},
		{abi.HostUIWidget, abi.HostUIWidgetBlock, AskWidget, false},
	} {
		params := []api.ValueType{i32, i32}
		if f.dst {
			params = append(params, i32, i32)
		}
		def(f.name, func(ctx context.Context, m api.Module, s []uint64) {
			s[0] = api.EncodeI64(e.uiCall(ctx, m, f.kind, s, f.dst))
		}, params, []api.ValueType{i64})
		def(f.block, func(ctx context.Context, _ api.Module, s []uint64) {
			s[0] = api.EncodeI64(e.uiBlock(ctx, f.kind, s[0], f.dst))
		}, []api.ValueType{i64}, []api.ValueType{i64})
	}
	_, err := b.Instantiate(ctx)
	return err
}

// countHostCall notes a host function called by the instance in use (a
// start that calls one is not snapshotted).
func (e *Extension) countHostCall() {
	if e.live != nil {
		e.live.hostCalls++
	}
}

// kernel returns the Extism kernel of the instance in use, or nil.
func (e *Extension) kernel() *kernel {
	if e.live == nil {
		return nil
	}
	return e.live.k
}

// blockCall runs a pi_*_block function: the argument is read from the
// Extism block at arg, the value is written to a new block.
func (e *Extension) blockCall(arg uint64, get func(string) ([]byte, int64)) int64 {
	k := e.kernel()
	if k == nil {
		return abi.ErrInvalid
	}
	b, ok := k.block(arg)
	if !ok || len(b) > maxKeyLen {
		return abi.ErrInvalid
	}
	val, code := get(string(b))
	if code < 0 {
		return code
	}
	if len(val) > k.max {
		return abi.ErrIO
	}
	return int64(k.write(val))
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

func (e *Extension) fetch(mem api.Memory, kp, kl, dst, dstCap uint32) int64 {
	key, ok := readGuest(mem, kp, kl, maxKeyLen)
	if !ok {
		return abi.ErrInvalid
	}
	val, code := e.fetchValue(key)
	if code < 0 {
		return code
	}
	return deliver(mem, val, dst, dstCap)
}

// fetchValue returns the value of key for the call in progress, or a
// negative abi error code.
func (e *Extension) fetchValue(key string) ([]byte, int64) {
	cs := e.call
	if key == "" {
		return nil, abi.ErrInvalid
	}
	if cs == nil {
		return nil, abi.ErrNotFound
	}
	if strings.HasPrefix(key, fileKeyPrefix) {
		// File reads go through pi_read_file and its grant checks only.
		return nil, abi.ErrDenied
	}
	var val []byte
	switch key {
	case abi.KeyEvent:
		val = cs.event
	case abi.KeyConfig:
		val = e.config
	case abi.KeyFlags:
		val = e.flags
		if val == nil {
			val = []byte("{}")
		}
	default:
		if cs.fetch == nil {
			return nil, abi.ErrNotFound
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
			return nil, abi.ErrNotFound
		}
		val = v
	}
	return val, 0
}

func (e *Extension) hostOutput(_ context.Context, m api.Module, stack []uint64) {
	mem, cs := m.Memory(), e.call
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

func (e *Extension) hostLog(_ context.Context, m api.Module, stack []uint64) {
	mem := m.Memory()
	level, ptr, n := int32(stack[0]), uint32(stack[1]), uint32(stack[2])
	if !e.logAllowed(e.live) {
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

func (e *Extension) readFile(mem api.Memory, pp, pl, dst, dstCap uint32) int64 {
	p, ok := readGuest(mem, pp, pl, maxKeyLen)
	if !ok {
		return abi.ErrInvalid
	}
	data, code := e.readFileValue(p)
	if code < 0 {
		return code
	}
	return deliver(mem, data, dst, dstCap)
}

// readFileValue reads a granted file for the call in progress, keeping
// the last one for a guest that asks again with a larger buffer.
func (e *Extension) readFileValue(p string) ([]byte, int64) {
	cs := e.call
	if cs == nil {
		return nil, abi.ErrDenied
	}
	if cs.file != p || cs.fileData == nil {
		data, code := e.readForCall(cs, p)
		if code < 0 {
			return nil, code
		}
		cs.file, cs.fileData = p, data
	}
	return cs.fileData, 0
}

// fileKeyPrefix marks a file read in a call's fetcher. The host asks the
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
