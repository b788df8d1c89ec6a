package host

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// The Extism kernel: the functions of the import module extism:host/env
// that every stock Extism PDK calls (input, output, errors, a block memory,
// variables, logging, HTTP). pi implements them in Go rather than running
// Extism's kernel module, because it drives wazero itself (see
// RATIONALE.md, "Extism's contract without Extism's host"): the kernel's
// "memory" is a Go byte slice, so handing a guest its event costs nothing
// and reading its output one copy.
//
// Offsets are positions in that slice. Blocks are handed out by a bump
// allocator, never below kernelBase (so that 0 stays "none"), and the
// whole memory is emptied at the start of every call, as Extism does.
// A block of no bytes is 0, as in Extism's own kernel: alloc(0) returns 0
// and reserves nothing, so that it can never share an offset with the next
// block (freeing it would free that one too), and every empty value a
// kernel function hands back (an empty variable, input or body) is 0.

const (
	envModule  = "extism:host/env"
	kernelBase = 8
	// extismLogDebug is Extism's number for the debug level (trace is 0).
	extismLogDebug = 1
	// maxVarBytes bounds the variables an instance may keep between calls.
	maxVarBytes = 64 << 10
)

// errKernelMemory is raised (as a trap) when a guest allocates more
// Extism memory than its memory limit; classify reports it as "memory".
var errKernelMemory = errors.New("out of memory: Extism memory exceeds the memory limit")

// kernel is the Extism kernel state of one instance.
type kernel struct {
	mem    []byte
	blocks map[uint64]uint64 // live blocks: offset → length
	last   uint64            // the most recent block; freeing it reclaims its space
	max    int               // cap on len(mem)

	input    []byte
	inputOff uint64 // where the input was copied into mem by input_offset (0: not yet)
	outOff   uint64
	outLen   uint64
	errOff   uint64

	vars     map[string][]byte
	varBytes int

	httpStatus  int32
	httpHeaders map[string]string
}

func newKernel(max int) *kernel {
	return &kernel{mem: make([]byte, kernelBase, 4<<10), blocks: map[uint64]uint64{}, max: max}
}

// reset empties the memory and sets the input of the next call. Variables
// survive, as in Extism.
func (k *kernel) reset(input []byte) {
	k.mem = k.mem[:kernelBase]
	if cap(k.mem) > 1<<20 {
		k.mem = make([]byte, kernelBase, 4<<10)
	}
	clear(k.blocks)
	k.last = 0
	k.input, k.inputOff = input, 0
	k.outOff, k.outLen, k.errOff = 0, 0, 0
}

func (k *kernel) alloc(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	off := (uint64(len(k.mem)) + 7) &^ 7
	if n > uint64(k.max) || off+n > uint64(k.max) {
		panic(errKernelMemory)
	}
	end := int(off + n)
	if end > cap(k.mem) {
		grown := make([]byte, end, max(end, 2*cap(k.mem)))
		copy(grown, k.mem)
		k.mem = grown
	} else {
		k.mem = k.mem[:end]
		clear(k.mem[off:end])
	}
	k.blocks[off] = n
	k.last = off
	return off
}

func (k *kernel) free(off uint64) {
	if _, ok := k.blocks[off]; !ok {
		return
	}
	delete(k.blocks, off)
	if off == k.last {
		k.mem = k.mem[:off]
		k.last = 0
	}
}

// block returns the bytes of the block at off (nil, false if off is not a
// live block). Offset 0 is the empty block.
func (k *kernel) block(off uint64) ([]byte, bool) {
	if off == 0 {
		return []byte{}, true
	}
	n, ok := k.blocks[off]
	if !ok {
		return nil, false
	}
	return k.mem[off : off+n], true
}

// span returns mem[off:off+n], trapping when it is out of range.
func (k *kernel) span(off, n uint64) []byte {
	if off > uint64(len(k.mem)) || n > uint64(len(k.mem))-off {
		panic(fmt.Errorf("Extism memory access out of range: offset %d, length %d", off, n))
	}
	return k.mem[off : off+n]
}

// write stores b in a new block and returns its offset.
func (k *kernel) write(b []byte) uint64 {
	off := k.alloc(uint64(len(b)))
	copy(k.mem[off:], b)
	return off
}

// readBlock returns a copy of the block at off, trapping when off is not a
// block.
func (k *kernel) readBlock(off uint64, what string) []byte {
	b, ok := k.block(off)
	if !ok {
		panic(fmt.Errorf("%s: %d is not an Extism memory block", what, off))
	}
	return bytes.Clone(b)
}

// output returns what the guest set with output_set (a copy), or nil.
func (k *kernel) output() []byte {
	if k.outLen == 0 || k.outOff > uint64(len(k.mem)) || k.outLen > uint64(len(k.mem))-k.outOff {
		return nil
	}
	return bytes.Clone(k.mem[k.outOff : k.outOff+k.outLen])
}

// errorText returns what the guest set with error_set, or "".
func (k *kernel) errorText() string {
	if k.errOff == 0 {
		return ""
	}
	b, ok := k.block(k.errOff)
	if !ok {
		return ""
	}
	return string(b)
}

// defineKernel adds the extism:host/env functions to the runtime. Each one
// works on the kernel of the instance in use (e.live).
func (e *Extension) defineKernel(ctx context.Context, rt wazero.Runtime) error {
	b := rt.NewHostModuleBuilder(envModule)
	i32, i64 := api.ValueTypeI32, api.ValueTypeI64
	def := func(name string, params, results []api.ValueType, f func(k *kernel, stack []uint64)) {
		b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
			e.countHostCall()
			k := e.kernel()
			if k == nil {
				panic(errors.New("no Extism kernel outside a call"))
			}
			f(k, stack)
		}), params, results).Export(name)
	}
	none := []api.ValueType{}
	def("alloc", []api.ValueType{i64}, []api.ValueType{i64}, func(k *kernel, s []uint64) { s[0] = k.alloc(s[0]) })
	def("free", []api.ValueType{i64}, none, func(k *kernel, s []uint64) { k.free(s[0]) })
	def("length", []api.ValueType{i64}, []api.ValueType{i64}, func(k *kernel, s []uint64) { s[0] = k.blocks[s[0]] })
	def("length_unsafe", []api.ValueType{i64}, []api.ValueType{i64}, func(k *kernel, s []uint64) { s[0] = k.blocks[s[0]] })
	def("load_u8", []api.ValueType{i64}, []api.ValueType{i32}, func(k *kernel, s []uint64) { s[0] = uint64(k.span(s[0], 1)[0]) })
	def("load_u64", []api.ValueType{i64}, []api.ValueType{i64}, func(k *kernel, s []uint64) {
		s[0] = binary.LittleEndian.Uint64(k.span(s[0], 8))
	})
	def("store_u8", []api.ValueType{i64, i32}, none, func(k *kernel, s []uint64) { k.span(s[0], 1)[0] = byte(s[1]) })
	def("store_u64", []api.ValueType{i64, i64}, none, func(k *kernel, s []uint64) {
		binary.LittleEndian.PutUint64(k.span(s[0], 8), s[1])
	})
	def("input_length", none, []api.ValueType{i64}, func(k *kernel, s []uint64) { s[0] = uint64(len(k.input)) })
	def("input_load_u8", []api.ValueType{i64}, []api.ValueType{i32}, func(k *kernel, s []uint64) {
		if s[0] >= uint64(len(k.input)) {
			panic(fmt.Errorf("input_load_u8: offset %d past the input's %d bytes", s[0], len(k.input)))
		}
		s[0] = uint64(k.input[s[0]])
	})
	def("input_load_u64", []api.ValueType{i64}, []api.ValueType{i64}, func(k *kernel, s []uint64) {
		// The last word of an input whose length is not a multiple of 8
		// is padded with zeros (PDKs read whole words while they can).
		i := s[0]
		if i >= uint64(len(k.input)) {
			panic(fmt.Errorf("input_load_u64: offset %d past the input's %d bytes", i, len(k.input)))
		}
		var w [8]byte
		copy(w[:], k.input[i:])
		s[0] = binary.LittleEndian.Uint64(w[:])
	})
	def("input_offset", none, []api.ValueType{i64}, func(k *kernel, s []uint64) {
		if k.inputOff == 0 {
			k.inputOff = k.write(k.input)
		}
		s[0] = k.inputOff
	})
	def("input_set", []api.ValueType{i64, i64}, none, func(k *kernel, s []uint64) {
		k.input, k.inputOff = bytes.Clone(k.span(s[0], s[1])), 0
	})
	def("output_set", []api.ValueType{i64, i64}, none, func(k *kernel, s []uint64) {
		k.span(s[0], s[1]) // must be in range
		k.outOff, k.outLen = s[0], s[1]
	})
	def("output_length", none, []api.ValueType{i64}, func(k *kernel, s []uint64) { s[0] = k.outLen })
	def("output_offset", none, []api.ValueType{i64}, func(k *kernel, s []uint64) { s[0] = k.outOff })
	def("error_set", []api.ValueType{i64}, none, func(k *kernel, s []uint64) { k.errOff = s[0] })
	def("error_get", none, []api.ValueType{i64}, func(k *kernel, s []uint64) { s[0] = k.errOff })
	def("memory_bytes", none, []api.ValueType{i64}, func(k *kernel, s []uint64) { s[0] = uint64(len(k.mem)) })
	def("reset", none, none, func(k *kernel, _ []uint64) { k.reset(k.input) })
	// The extension's config (the manifest's, with the user's settings
	// merged over it), served the way Extism serves a plugin's config, so
	// that a PDK's own getter works.
	def("config_get", []api.ValueType{i64}, []api.ValueType{i64}, func(k *kernel, s []uint64) {
		v, ok := e.extismConfig[string(k.readBlock(s[0], "config_get"))]
		if !ok {
			s[0] = 0
			return
		}
		s[0] = k.write(v)
	})
	def("var_get", []api.ValueType{i64}, []api.ValueType{i64}, func(k *kernel, s []uint64) {
		name := string(k.readBlock(s[0], "var_get"))
		v, ok := k.vars[name]
		if !ok {
			s[0] = 0
			return
		}
		s[0] = k.write(v)
	})
	def("var_set", []api.ValueType{i64, i64}, none, func(k *kernel, s []uint64) { k.setVar(s[0], s[1]) })
	// pi's log has four levels, debug to error (pi_log's), and keeps them
	// all: the lowest level is what get_log_level reports, in Extism's
	// numbering, so that a PDK filtering by it sends exactly what pi keeps.
	// Trace is below it and dropped here, as Extism's host drops a level
	// below the one it reports. The level does not depend on --verbose:
	// a guest could answer differently at another level, and a memoised
	// result must not depend on how pi was run.
	def("get_log_level", none, []api.ValueType{i32}, func(k *kernel, s []uint64) { s[0] = extismLogDebug })
	def("log_trace", []api.ValueType{i64}, none, func(k *kernel, s []uint64) {})
	for name, level := range map[string]string{"log_debug": "debug", "log_info": "info", "log_warn": "warn", "log_error": "error"} {
		def(name, []api.ValueType{i64}, none, func(k *kernel, s []uint64) {
			b, ok := k.block(s[0])
			if !ok {
				return
			}
			if !e.logAllowed(e.live) {
				return
			}
			e.rt.log(e.Name(), level, string(b[:min(len(b), maxLogLen)]))
		})
	}
	b.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, s []uint64) {
		e.countHostCall()
		k := e.kernel()
		if k == nil {
			panic(errors.New("no Extism kernel outside a call"))
		}
		s[0] = e.httpRequest(ctx, k, s[0], s[1])
	}), []api.ValueType{i64, i64}, []api.ValueType{i64}).Export("http_request")
	def("http_status_code", none, []api.ValueType{i32}, func(k *kernel, s []uint64) { s[0] = uint64(k.httpStatus) })
	def("http_headers", none, []api.ValueType{i64}, func(k *kernel, s []uint64) {
		if k.httpHeaders == nil {
			s[0] = 0
			return
		}
		j, _ := json.Marshal(k.httpHeaders)
		s[0] = k.write(j)
	})
	_, err := b.Instantiate(ctx)
	return err
}

func (k *kernel) setVar(nameOff, valOff uint64) {
	name := string(k.readBlock(nameOff, "var_set"))
	if old, ok := k.vars[name]; ok {
		k.varBytes -= len(name) + len(old)
		delete(k.vars, name)
	}
	if valOff == 0 {
		return
	}
	v := k.readBlock(valOff, "var_set")
	if k.varBytes+len(name)+len(v) > maxVarBytes {
		panic(fmt.Errorf("var_set: variables exceed %d bytes", maxVarBytes))
	}
	if k.vars == nil {
		k.vars = map[string][]byte{}
	}
	k.vars[name] = v
	k.varBytes += len(name) + len(v)
}

// httpRequest is Extism's http_request: a JSON request ({url, method,
// headers}) and an optional body block; the response body comes back as a
// block (0 when empty). A host or port outside the network grant traps, and
// so does a redirect to one.
func (e *Extension) httpRequest(ctx context.Context, k *kernel, reqOff, bodyOff uint64) uint64 {
	var req struct {
		URL     string            `json:"url"`
		Method  string            `json:"method"`
		Headers map[string]string `json:"headers"`
	}
	k.httpStatus, k.httpHeaders = 0, nil
	if err := json.Unmarshal(k.readBlock(reqOff, "http_request"), &req); err != nil {
		panic(fmt.Errorf("http_request: invalid request: %v", err))
	}
	var body io.Reader
	if bodyOff != 0 {
		body = bytes.NewReader(k.readBlock(bodyOff, "http_request body"))
	}
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	hr, err := http.NewRequestWithContext(ctx, method, req.URL, body)
	if err != nil {
		panic(fmt.Errorf("http_request: %v", err))
	}
	for h, v := range req.Headers {
		hr.Header.Set(h, v)
	}
	// The transport checks the grant on every round trip, redirects
	// included; a refusal is an error from Do, and so a trap.
	client := netGrant(e.caps.Network).client()
	resp, err := client.Do(hr)
	if err != nil {
		panic(fmt.Errorf("http_request: %v", err))
	}
	defer resp.Body.Close()
	limit := int64(e.limits.OutputKiB) << 10
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		panic(fmt.Errorf("http_request: reading the response: %v", err))
	}
	if int64(len(data)) > limit {
		panic(fmt.Errorf("http_request: response larger than the output limit of %d bytes", limit))
	}
	k.httpStatus = int32(resp.StatusCode)
	k.httpHeaders = map[string]string{}
	for h, v := range resp.Header {
		k.httpHeaders[strings.ToLower(h)] = strings.Join(v, ",")
	}
	if len(data) == 0 {
		return 0
	}
	return k.write(data)
}
