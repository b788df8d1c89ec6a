package host

import (
	"errors"
	"fmt"
)

// Import is one function, table, memory or global a module imports.
type Import struct {
	Module string `json:"module"`
	Name   string `json:"name"`
	Kind   string `json:"kind"` // "func", "table", "memory" or "global"
}

var errShortWasm = errors.New("truncated module")

// findSection returns a reader over the body of the section with the given
// id, or ok=false when the module has none. Nothing else is decoded.
func findSection(b []byte, id byte) (sec wasmReader, ok bool, err error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" {
		return wasmReader{}, false, errors.New("not a WebAssembly module")
	}
	r := wasmReader{b: b, i: 8}
	for r.i < len(r.b) {
		sid := r.byte()
		size := int(r.uleb())
		if r.err != nil || size > len(r.b)-r.i {
			return wasmReader{}, false, errShortWasm
		}
		if sid == id {
			return wasmReader{b: r.b[:r.i+size], i: r.i}, true, nil
		}
		r.i += size
	}
	return wasmReader{}, false, nil
}

// moduleImports lists the imports of a WebAssembly binary by reading its
// import section.
func moduleImports(b []byte) ([]Import, error) {
	sec, ok, err := findSection(b, 2)
	if !ok || err != nil {
		return nil, err
	}
	n := int(sec.uleb())
	var out []Import
	for k := 0; k < n && sec.err == nil; k++ {
		im := Import{Module: sec.name(), Name: sec.name()}
		switch kind := sec.byte(); kind {
		case 0:
			im.Kind = "func"
			sec.uleb()
		case 1:
			im.Kind = "table"
			sec.byte()
			sec.limits()
		case 2:
			im.Kind = "memory"
			sec.limits()
		case 3:
			im.Kind = "global"
			sec.byte()
			sec.byte()
		default:
			return nil, fmt.Errorf("unknown import kind %d", kind)
		}
		out = append(out, im)
	}
	if sec.err != nil {
		return nil, sec.err
	}
	return out, nil
}

// moduleExports lists the names of the functions a WebAssembly binary
// exports, reading only its export section.
func moduleExports(b []byte) ([]string, error) {
	sec, ok, err := findSection(b, 7)
	if !ok || err != nil {
		return nil, err
	}
	n := int(sec.uleb())
	var out []string
	for k := 0; k < n && sec.err == nil; k++ {
		name := sec.name()
		kind := sec.byte()
		sec.uleb()
		if kind == 0 {
			out = append(out, name)
		}
	}
	return out, sec.err
}

type wasmReader struct {
	b   []byte
	i   int
	err error
}

func (r *wasmReader) byte() byte {
	if r.i >= len(r.b) {
		r.err = errShortWasm
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *wasmReader) uleb() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.err = errors.New("bad LEB128")
	return 0
}

func (r *wasmReader) name() string {
	n := int(r.uleb())
	if r.err != nil || n > len(r.b)-r.i {
		r.err = errShortWasm
		return ""
	}
	s := string(r.b[r.i : r.i+n])
	r.i += n
	return s
}

func (r *wasmReader) limits() {
	flags := r.byte()
	r.uleb()
	if flags&1 != 0 {
		r.uleb()
	}
}
