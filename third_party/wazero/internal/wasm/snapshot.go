package wasm

// PI-PATCH: the module instance's side of experimental/snapshot.go, and
// the data section decoded on demand.

import (
	"errors"
	"fmt"
	"sync"
)

// LazyData is a data section kept undecoded (PI-PATCH). A Go guest's has
// some 40,000 segments; an instance restored from a snapshot never needs
// them, and decoding them was a tenth of a guest's start.
type LazyData struct {
	// Count is the number of segments (the vector's length).
	Count uint32
	// Decode decodes the section.
	Decode func() ([]DataSegment, error)

	once sync.Once
	err  error
}

// DataCount returns the number of data segments, decoded or not.
func (m *Module) DataCount() uint32 {
	if m.LazyData != nil {
		return m.LazyData.Count
	}
	return uint32(len(m.DataSection))
}

// EnsureData decodes a lazily kept data section into DataSection (once;
// safe for concurrent use).
func (m *Module) EnsureData() error {
	l := m.LazyData
	if l == nil {
		return nil
	}
	l.once.Do(func() {
		m.DataSection, l.err = l.Decode()
		if l.err == nil && uint32(len(m.DataSection)) != l.Count {
			l.err = errors.New("data section: segment count changed")
		}
		if l.err != nil {
			l.err = fmt.Errorf("decoding the data section: %w", l.err)
		}
	})
	return l.err
}

// PiSnapshotGlobals implements the method of the same name in
// experimental/snapshot.go.
func (m *ModuleInstance) PiSnapshotGlobals() ([]uint64, bool) {
	src := m.Source
	if src == nil || m.MemoryInstance == nil || src.ImportGlobalCount != 0 || src.ImportMemoryCount != 0 || src.ImportTableCount != 0 || src.StartSection != nil {
		return nil, false
	}
	if src.EnsureData() != nil {
		return nil, false
	}
	for i := range src.DataSection {
		if src.DataSection[i].IsPassive() {
			return nil, false
		}
	}
	vals := make([]uint64, 0, 2*len(m.Globals))
	for _, g := range m.Globals {
		switch g.Type.ValType {
		case ValueTypeI32, ValueTypeI64, ValueTypeF32, ValueTypeF64, ValueTypeV128:
		default:
			return nil, false
		}
		lo, hi := g.Value()
		vals = append(vals, lo, hi)
	}
	return vals, true
}

// PiRestoreGlobals implements the method of the same name in
// experimental/snapshot.go.
func (m *ModuleInstance) PiRestoreGlobals(vals []uint64) bool {
	if len(vals) != 2*len(m.Globals) || m.MemoryInstance == nil || m.Source == nil || m.Source.ImportGlobalCount != 0 {
		return false
	}
	for _, g := range m.Globals {
		switch g.Type.ValType {
		case ValueTypeI32, ValueTypeI64, ValueTypeF32, ValueTypeF64, ValueTypeV128:
		default:
			return false
		}
	}
	for i, g := range m.Globals {
		g.SetValue(vals[2*i], vals[2*i+1])
	}
	return true
}

// PiTableReferences implements the method of the same name in
// experimental/snapshot.go.
func (m *ModuleInstance) PiTableReferences() []uintptr {
	var refs []uintptr
	for _, t := range m.Tables {
		refs = append(refs, t.References...)
		refs = append(refs, ^uintptr(0)) // a separator: tables of other lengths differ
	}
	return refs
}
