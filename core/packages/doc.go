// Package packages fetches extension packages for `pi install` and keeps
// the lock that pins them: where a package came from (a local directory, a
// git repository at a commit, an npm package at a version), and the
// SHA-256 of the module that was installed.
//
// A package is what `pi ext install` takes: a directory with
// extension.yaml and its .wasm module, at the top of the source (a git
// checkout, or the "package/" folder of an npm tarball). Fetching runs the
// git and npm commands the user already has, so their configuration
// (credentials, registry, proxy) applies; nothing is fetched unless the
// user ran a command that says so.
//
// pi keeps its lock in its own file in the agent dir (pi-packages.json),
// not in settings.json's "packages": the established harness reads that
// key too and would install pi's WebAssembly packages as packages of its
// own.
package packages
