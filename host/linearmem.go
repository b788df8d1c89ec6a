package host

// sliceMemory is a linear memory in a Go slice, grown by copying: wazero's
// own way, used when a reservation cannot be mapped.
type sliceMemory struct{ b []byte }

func (m *sliceMemory) Reallocate(size uint64) []byte {
	if size <= uint64(cap(m.b)) {
		m.b = m.b[:size]
		return m.b
	}
	n := make([]byte, size)
	copy(n, m.b)
	m.b = n
	return m.b
}

func (m *sliceMemory) Free() { m.b = nil }
