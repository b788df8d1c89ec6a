package host

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/diag"
	"github.com/piwasm/pi/internal/yamlerr"
	"gopkg.in/yaml.v3"
)

// Package is an extension package read from disk, before any code runs.
type Package struct {
	Dir          string       // the package directory
	ManifestPath string       // <Dir>/extension.yaml
	ModulePath   string       // <Dir>/<module>
	Manifest     abi.Manifest // the parsed manifest
	SHA256       string       // hex SHA-256 of the module
	Size         int          // module size in bytes
	Imports      []Import     // what the module imports
	wasm         []byte
	sum          [sha256.Size]byte // SHA-256 of wasm, set with it; wazero's compile cache key is derived from it
	importsErr   error
	exports      []string          // exported function names, from the binary
	cached       bool              // SHA-256 and the lists above came from the digest cache
	toolSchemas  []json.RawMessage // parameter schema of each declared tool (Manifest.Tools order)
}

// ReadManifest reads and validates dir's extension.yaml without touching
// the module. Every problem is a diagnostic naming the file and the field.
func ReadManifest(dir string) (*abi.Manifest, []diag.Diagnostic) {
	m, _, ds := readManifest(dir)
	return m, ds
}

// readManifest is ReadManifest that also returns the manifest's bytes.
func readManifest(dir string) (*abi.Manifest, []byte, []diag.Diagnostic) {
	path := filepath.Join(dir, abi.ManifestFile)
	var m abi.Manifest
	report := func(format string, args ...any) []diag.Diagnostic {
		return []diag.Diagnostic{{Kind: DiagManifest, Path: path, Extension: m.Name, Message: fmt.Sprintf(format, args...)}}
	}
	raw, err := ReadRegularFile(path, MaxManifestBytes)
	if err != nil {
		return nil, nil, report("%v", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, nil, report("%s", yamlerr.Message(err, raw))
	}
	var ds []diag.Diagnostic
	for _, msg := range unknownKeys(&doc, reflect.TypeOf(m), "") {
		ds = append(ds, report("%s", msg)...)
	}
	if len(ds) > 0 {
		return nil, nil, ds
	}
	if len(doc.Content) > 0 {
		if err := doc.Decode(&m); err != nil {
			var te *yaml.TypeError
			if errors.As(err, &te) {
				for _, msg := range yamlTypeErrors(te) {
					ds = append(ds, report("%s", msg)...)
				}
				return nil, nil, ds
			}
			return nil, nil, report("%s", yamlerr.Message(err, raw))
		}
	}
	if len(m.Hooks) == 0 && len(m.Commands) == 0 && len(m.Tools) == 0 {
		// Validate names the missing fields; say what it means first.
		ds = append(ds, report("declares no hooks, commands or tools, so pi would never call it; add a hooks: list (one or more of %s) or a tools: list", strings.Join(abi.Hooks, ", "))...)
	}
	for _, e := range m.Validate() {
		ds = append(ds, diag.Diagnostic{Kind: DiagManifest, Path: path, Extension: m.Name, Message: e.Error()})
	}
	if len(ds) > 0 {
		return nil, nil, ds
	}
	return &m, raw, nil
}

// ReadPackage reads and validates the package in dir: the manifest (every
// problem a diagnostic naming the file and the field) and the module (its
// bytes and SHA-256). It returns nil and the diagnostics when the package
// cannot be used.
func ReadPackage(dir string) (*Package, []diag.Diagnostic) {
	return readPackage(dir, nil)
}

// readPackage is ReadPackage with an optional digest cache: when the
// module's file identity matches a cached entry, its SHA-256, imports and
// exports come from the cache and its bytes are read only when it is
// compiled (and checked against the SHA-256 then).
func readPackage(dir string, cache *digestCache) (*Package, []diag.Diagnostic) {
	m, raw, ds := readManifest(dir)
	if m == nil {
		return nil, ds
	}
	p := &Package{Dir: dir, ManifestPath: filepath.Join(dir, abi.ManifestFile), Manifest: *m}
	schemas, errs := toolSchemas(dir, raw, m)
	if len(errs) > 0 {
		for _, e := range errs {
			ds = append(ds, diag.Diagnostic{Kind: DiagManifest, Path: p.ManifestPath, Extension: m.Name, Message: e.Error()})
		}
		return nil, ds
	}
	p.toolSchemas = schemas
	p.ModulePath = filepath.Join(dir, p.Manifest.ModuleFile())
	if cache != nil {
		if d, ok := cache.lookup(p.ModulePath); ok {
			p.SHA256, p.Size, p.Imports, p.exports, p.cached = d.SHA256, d.Size, d.Imports, d.Exports, true
			if d.ImportsErr != "" {
				p.importsErr = errors.New(d.ImportsErr)
			}
			return p, nil
		}
	}
	wasm, err := ReadRegularFile(p.ModulePath, MaxModuleBytes)
	if err != nil {
		return nil, []diag.Diagnostic{{Kind: DiagModule, Path: p.ModulePath, Extension: p.Manifest.Name, Message: err.Error()}}
	}
	p.setModule(wasm)
	if cache != nil {
		cache.store(p)
	}
	return p, nil
}

// setModule records the module bytes and what is derived from them.
func (p *Package) setModule(wasm []byte) {
	p.wasm = wasm
	p.sum = sha256.Sum256(wasm)
	p.SHA256 = hex.EncodeToString(p.sum[:])
	p.Size = len(wasm)
	// A module that cannot be parsed is still a package (its manifest and
	// failure policy are readable); loading it reports a compile error.
	p.Imports, p.importsErr = moduleImports(wasm)
	p.exports, _ = moduleExports(wasm)
}

// moduleBytes returns the module, reading it now if the package came from
// the digest cache. The bytes must still have the SHA-256 the package was
// loaded with: grants and memoised results are pinned to it.
func (p *Package) moduleBytes() ([]byte, error) {
	if p.wasm != nil {
		return p.wasm, nil
	}
	wasm, err := ReadRegularFile(p.ModulePath, MaxModuleBytes)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(wasm)
	if got := hex.EncodeToString(sum[:]); got != p.SHA256 {
		return nil, fmt.Errorf("%s changed on disk since it was loaded (sha256 %s, now %s)", p.ModulePath, ShortSHA(p.SHA256), ShortSHA(got))
	}
	p.wasm, p.sum = wasm, sum
	return wasm, nil
}

// compileBytes returns the module's bytes for one compilation and the
// function to call once wazero is done with them (it keeps no reference:
// it copies what it keeps). Bytes already held (a package read without the
// digest cache) are handed out as they are; otherwise the file is read
// outside the heap (readOffHeap) and checked against the SHA-256 as
// moduleBytes does, without being kept.
func (p *Package) compileBytes() (wasm []byte, release func(), err error) {
	if p.wasm == nil {
		if b, rel, ok := readOffHeap(p.ModulePath, p.Size); ok {
			sum := sha256.Sum256(b)
			if hex.EncodeToString(sum[:]) == p.SHA256 {
				p.sum = sum
				return b, rel, nil
			}
			rel() // changed: moduleBytes reads it again and says so
		}
	}
	wasm, err = p.moduleBytes()
	return wasm, func() {}, err
}

// usesExtismKernel reports whether the module imports Extism's kernel
// functions (input, output, memory, HTTP, variables), as guests built with
// an Extism PDK do. Guests that only use the pi host functions need no
// kernel bookkeeping per call.
func (p *Package) usesExtismKernel() bool {
	for _, im := range p.Imports {
		if im.Module == "extism:host/env" {
			return true
		}
	}
	return false
}
