//go:build wasip1

// gopdk is the conformance guest built with the stock Extism Go PDK
// (github.com/extism/go-pdk) and the standard toolchain. host's
// conformance test runs each export under pi's kernel and under Extism's
// own Go host with the same inputs and compares what comes back. It is a
// module of its own, so that the PDK never enters pi's go.mod.
package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/extism/go-pdk"
)

// pi_abi_version and pi_input make the module loadable as a pi extension;
// Extism's host never calls them.
//
//go:wasmexport pi_abi_version
func piABIVersion() int32 { return 1 }

//go:wasmexport pi_input
func piInput() int32 {
	pdk.OutputString(`{"result":{}}`)
	return 0
}

//go:wasmexport echo
func echo() int32 {
	pdk.Output(pdk.Input())
	return 0
}

// blocks allocates blocks of several sizes (0 among them), frees some and
// reports what length says of each and what the survivors hold.
//
//go:wasmexport blocks
func blocks() int32 {
	in := pdk.Input()
	empty := pdk.Allocate(0)
	a := pdk.AllocateBytes(in)
	b := pdk.AllocateString("second")
	empty.Free()
	c := pdk.Allocate(3)
	c.Store([]byte("abc"))
	var out strings.Builder
	length := func(off uint64) uint64 { m := pdk.FindMemory(off); return m.Length() }
	fmt.Fprintf(&out, "empty=%d/%d a=%d b=%d c=%d ", empty.Offset(), empty.Length(),
		length(a.Offset()), length(b.Offset()), length(c.Offset()))
	fmt.Fprintf(&out, "a=%q b=%q c=%q", a.ReadBytes(), b.ReadBytes(), c.ReadBytes())
	pdk.OutputString(out.String())
	return 0
}

// vars sets, reads, empties and removes variables; "count" survives
// between calls.
//
//go:wasmexport vars
func vars() int32 {
	in := pdk.Input()
	n := pdk.GetVarInt("count") + 1
	pdk.SetVarInt("count", n)
	pdk.SetVar("value", in)
	got := pdk.GetVar("value")
	pdk.SetVar("empty", []byte{})
	empty := pdk.GetVar("empty")
	pdk.SetVar("gone", []byte("x"))
	pdk.RemoveVar("gone")
	gone := pdk.GetVar("gone")
	pdk.OutputString(fmt.Sprintf("count=%d value=%q empty=%v/%d gone=%v missing=%v",
		n, got, empty == nil, len(empty), gone == nil, pdk.GetVar("never set") == nil))
	return 0
}

// config reads the keys named in the input (comma-separated).
//
//go:wasmexport config
func config() int32 {
	var parts []string
	for _, k := range strings.Split(pdk.InputString(), ",") {
		if v, ok := pdk.GetConfig(k); ok {
			parts = append(parts, k+"="+v)
		} else {
			parts = append(parts, k+"=<absent>")
		}
	}
	pdk.OutputString(strings.Join(parts, " "))
	return 0
}

// fail sets an error and returns 1, as a handler's failure.
//
//go:wasmexport fail
func fail() int32 {
	pdk.SetErrorString("failed: " + pdk.InputString())
	return 1
}

// fail_zero sets an error, answers, and returns 0: the error must win.
//
//go:wasmexport fail_zero
func failZero() int32 {
	pdk.OutputString("an answer that must not be used")
	pdk.SetErrorString("failed quietly")
	return 0
}

// logs writes one line at every level.
//
//go:wasmexport logs
func logs() int32 {
	for _, l := range []pdk.LogLevel{pdk.LogTrace, pdk.LogDebug, pdk.LogInfo, pdk.LogWarn, pdk.LogError} {
		pdk.Log(l, "line at "+strconv.Itoa(int(l))+": "+pdk.InputString())
	}
	pdk.OutputString("logged")
	return 0
}

// http GETs the URL in the input and reports the status, a header and the
// body.
//
//go:wasmexport http
func http() int32 {
	res := pdk.NewHTTPRequest(pdk.MethodGet, pdk.InputString()).SetHeader("X-Test", "conformance").Send()
	pdk.OutputString(fmt.Sprintf("status=%d type=%q body=%q", res.Status(), res.Headers()["x-answer"], res.Body()))
	return 0
}

// big answers with n bytes, n given in the input.
//
//go:wasmexport big
func big() int32 {
	n, _ := strconv.Atoi(pdk.InputString())
	out := make([]byte, n)
	for i := range out {
		out[i] = byte('a' + i%26)
	}
	pdk.Output(out)
	return 0
}

func main() {}
