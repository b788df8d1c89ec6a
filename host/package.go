package host

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/piwasm/pi/abi"
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
	importsErr   error
}

// ReadPackage reads and validates the package in dir: the manifest (every
// problem a diagnostic naming the file and the field) and the module (its
// bytes and SHA-256). It returns nil and the diagnostics when the package
// cannot be used.
func ReadPackage(dir string) (*Package, []Diagnostic) {
	p := &Package{Dir: dir, ManifestPath: filepath.Join(dir, abi.ManifestFile)}
	diag := func(kind, path, format string, args ...any) []Diagnostic {
		return []Diagnostic{{Kind: kind, Path: path, Extension: p.Manifest.Name, Message: fmt.Sprintf(format, args...)}}
	}
	raw, err := os.ReadFile(p.ManifestPath)
	if err != nil {
		return nil, diag(DiagManifest, p.ManifestPath, "%v", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&p.Manifest); err != nil {
		return nil, diag(DiagManifest, p.ManifestPath, "%v", err)
	}
	var ds []Diagnostic
	for _, e := range p.Manifest.Validate() {
		ds = append(ds, Diagnostic{Kind: DiagManifest, Path: p.ManifestPath, Extension: p.Manifest.Name, Message: e.Error()})
	}
	if len(ds) > 0 {
		return nil, ds
	}
	p.ModulePath = filepath.Join(dir, p.Manifest.ModuleFile())
	p.wasm, err = os.ReadFile(p.ModulePath)
	if err != nil {
		return nil, diag(DiagModule, p.ModulePath, "%v", err)
	}
	sum := sha256.Sum256(p.wasm)
	p.SHA256 = hex.EncodeToString(sum[:])
	p.Size = len(p.wasm)
	// A module that cannot be parsed is still a package (its manifest and
	// failure policy are readable); loading it reports a compile error.
	p.Imports, p.importsErr = moduleImports(p.wasm)
	return p, nil
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
