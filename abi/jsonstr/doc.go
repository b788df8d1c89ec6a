// Package jsonstr writes JSON strings byte for byte as encoding/json does
// (without its HTML escaping), and holds the eight-bytes-at-a-time test
// for bytes a JSON string must escape, which the readers use too.
//
// pi writes JSON without reflection in two places that are hot: the
// session file's entries (core/session, which must stay identical to what
// encoding/json wrote before) and the ABI payloads of the WebAssembly
// guests (abi, which run it inside a guest with deadline checks). Both
// escape strings here, so the two cannot drift apart.
package jsonstr
