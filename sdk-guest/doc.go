// Package sdk is the Go SDK for pi extensions. An extension is a standard Go
// program built with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -buildvcs=false -o NAME.wasm .
//
// that registers its handlers from an init function. The SDK itself exports
// every function of ABI v1 (pi_abi_version, pi_before_agent_start,
// pi_assemble, pi_input, pi_command, pi_commands), so the author writes no
// //go:wasmexport stubs:
//
//	package main
//
//	import (
//		"github.com/piwasm/pi/abi"
//		sdk "github.com/piwasm/pi/sdk-guest"
//	)
//
//	func init() {
//		sdk.OnBeforeAgentStart(func(ev *abi.BeforeAgentStartEvent, r *sdk.BeforeAgentStart) error {
//			r.SetSection("team", "We review every change.", sdk.Order(250))
//			return nil
//		})
//	}
//
//	func main() {} // required by the toolchain, never called
//
// main is not run in a c-shared module: registration must happen in init.
// A hook whose handler is not registered answers with an error envelope; the
// host only calls the hooks the manifest lists.
//
// Every export runs through one wrapper that fetches and decodes the event
// (one copy, through the pi_fetch host function), calls the handler
// (a panic becomes an error envelope), encodes and outputs the envelope (one
// copy, through pi_output), and yields to the Go scheduler before returning
// so that the guest's garbage collector gets to run between calls. pi_fetch
// and pi_output are pi's direct host functions, which work on the guest's
// own memory; guests built with a stock Extism PDK use the Extism input and
// output and pi_fetch_block instead (docs/extensions.md, "The contract for
// any Extism PDK"). Both are one contract: the same exports, events and
// envelopes.
//
// Outside WebAssembly (go test on the host) the same handlers run through
// Harness, which serves the config, fetch keys and files from its fields.
package sdk
