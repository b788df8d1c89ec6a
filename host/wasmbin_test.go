package host

// Hand-assembled modules for cases the Go toolchain cannot produce: a raw
// `unreachable`, a module reporting another ABI version, a module with
// nothing in it.

func uleb(v uint32) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func section(id byte, body []byte) []byte {
	return append(append([]byte{id}, uleb(uint32(len(body)))...), body...)
}

type wasmFunc struct {
	export string
	body   []byte // instructions, without locals and the final end
}

// wasmModule builds a module whose functions all have type () -> i32.
func wasmModule(funcs ...wasmFunc) []byte {
	m := []byte{0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00}
	if len(funcs) == 0 {
		return m
	}
	m = append(m, section(1, []byte{1, 0x60, 0, 1, 0x7f})...)
	fs := uleb(uint32(len(funcs)))
	ex := uleb(uint32(len(funcs)))
	code := uleb(uint32(len(funcs)))
	for i, f := range funcs {
		fs = append(fs, 0)
		ex = append(append(append(ex, uleb(uint32(len(f.export)))...), f.export...), 0, byte(i))
		body := append(append([]byte{0}, f.body...), 0x0b)
		code = append(append(code, uleb(uint32(len(body)))...), body...)
	}
	m = append(m, section(3, fs)...)
	m = append(m, section(7, ex)...)
	return append(m, section(10, code)...)
}

func i32const(v byte) []byte { return []byte{0x41, v} }

var opUnreachable = []byte{0x00}
