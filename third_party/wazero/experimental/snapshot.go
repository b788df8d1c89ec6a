package experimental

// PI-PATCH: what pi needs to restore an initialised instance from a
// snapshot instead of applying data segments and running the guest's
// initialiser again. See PI-PATCH.md.

import (
	"context"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/internal/expctxkeys"
	"github.com/tetratelabs/wazero/internal/version"
)

// Version is wazero's version as the compilation cache keys it: a
// snapshot taken under one version is not restored under another.
func Version() string { return version.GetWazeroVersion() }

// WithActiveDataSkipped returns a context that makes InstantiateModule
// leave the module's active data segments unapplied: the memory allocator
// in the same context is expected to hand out memory that already holds
// them (a snapshot of an initialised instance). Start functions still run
// unless the module config disables them.
func WithActiveDataSkipped(ctx context.Context) context.Context {
	return context.WithValue(ctx, expctxkeys.ActiveDataSkippedKey{}, true)
}

// WithModuleSource returns a context that makes CompileModule, on a
// compilation-cache hit, keep no copy of the module's data section: when
// an instantiation first needs the data (one not restored from a
// snapshot), source is called for the module's bytes, which must be the
// very bytes compiled (an error or other bytes fail that instantiation).
// For a caller that expects to restore its instances, this saves holding
// a section that is seldom read.
func WithModuleSource(ctx context.Context, source func() ([]byte, error)) context.Context {
	return context.WithValue(ctx, expctxkeys.ModuleSourceKey{}, source)
}

// instanceState is implemented by wazero's module instances.
type instanceState interface {
	PiSnapshotGlobals() ([]uint64, bool)
	PiRestoreGlobals([]uint64) bool
	PiTableReferences() []uintptr
}

// SnapshotGlobals returns the values of the module's own globals, two
// words (low, high) per global. ok is false when the module's state cannot
// be carried to another process as plain values: it has no memory of its
// own, imports a global,
// memory or table, has a start function (it would run again on the
// restored state), a reference-typed global, or passive data segments
// (whose dropped state would be lost).
func SnapshotGlobals(m api.Module) (vals []uint64, ok bool) {
	s, isState := m.(instanceState)
	if !isState {
		return nil, false
	}
	return s.PiSnapshotGlobals()
}

// RestoreGlobals sets the module's own globals to vals, as returned by
// SnapshotGlobals for an instance of the same module; false when they do
// not fit or the module has no memory of its own (nothing is changed
// then).
func RestoreGlobals(m api.Module, vals []uint64) bool {
	s, isState := m.(instanceState)
	return isState && s.PiRestoreGlobals(vals)
}

// TableReferences returns every element of every table of the module, in
// order, as the engine's references (meaningful only within this process:
// for comparing an instance's tables before and after it ran).
func TableReferences(m api.Module) []uintptr {
	if s, isState := m.(instanceState); isState {
		return s.PiTableReferences()
	}
	return nil
}
