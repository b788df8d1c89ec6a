// Package pi carries, inside the pi binary, the source an extension author
// needs to build a guest without fetching pi from a module proxy: the Go
// SDK (sdk-guest) and the packages it uses (abi, core/termtext), plus the pinned npm
// lock and JSON helper of the AssemblyScript scaffold. `pi ext init`
// writes them out next to a new extension. The package lives at the
// module root because go:embed only reaches files below the embedding
// package.
package pi
