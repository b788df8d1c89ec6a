package host

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/tetratelabs/wazero/experimental"
)

// A snapshot is a guest's state right after its runtime's initializer ran
// (a Go guest's _initialize: the Go runtime's and every package's start-up),
// saved next to the compilation cache so that the next process starts the
// guest from it instead of applying the module's data segments and running
// the initializer again (Wizer's idea, done at run time). It holds the
// linear memory, the module's own globals, and the state of the two fake
// sources a guest without grants reads while it starts (the monotonic
// clock's counter and the random source's state): restoring them gives
// exactly the instance a fresh start gives, because for a guest without the
// clock, random or environment grant nothing it can observe while it starts
// differs between runs.
//
// A guest is snapshotted only when its start is reproducible that way: no
// clock, random or environment grant; no host function of pi's or Extism's
// called, no stderr written, no log line while it started (those would not
// happen again); no start function, no imported or reference-typed state
// and no passive data segments (experimental.SnapshotGlobals); and tables
// as the module's element segments left them.
//
// The file: a header (snapshotMagic, the format version, the sizes, the
// clock and random states, the globals, a CRC-32C of the header and one of
// the memory image), padded to snapshotAlign, then the memory image. On
// Unix the image is mapped copy-on-write into the guest's memory
// reservation, so only the pages a call touches are read, and they are
// shared with the page cache until written; elsewhere it is read.
//
// The key (the file's name) is the SHA-256 of everything a start depends
// on: the format, wazero's version, the CPU architecture, the module's
// SHA-256 and the memory limit. A snapshot is trusted as the compilation
// cache beside it is (RATIONALE.md, "Snapshots of started guests"); its
// CRCs catch damage, not tampering.
const (
	snapshotMagic   = "pi-snap\x00"
	snapshotFormat  = 1
	snapshotAlign   = 64 << 10
	snapshotMaxHead = snapshotAlign
)

// snapshotState is what a snapshot restores besides the memory.
type snapshotState struct {
	globals []uint64
	clock   int64  // fakeClock.t
	rand    uint64 // detRand.state
}

// snapshot is a snapshot file that passed its checks.
type snapshot struct {
	path     string
	state    snapshotState
	memBytes uint64 // length of the memory image (a multiple of the wasm page)
	imageOff int64
	image    []byte // the image read into memory (non-Unix), nil when mapped
}

// snapshotKey returns the snapshot's file for the extension, or "" when
// its start cannot be snapshotted (a grant makes it depend on the world,
// or there is no cache directory).
func (e *Extension) snapshotPath() string {
	if e.rt.cfg.AgentDir == "" || e.caps.Clock || e.caps.Random || len(e.caps.Env) > 0 {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "pi guest snapshot %d\nwazero %s\narch %s\nmodule %s\nmemory %d\n",
		snapshotFormat, experimental.Version(), runtime.GOARCH, e.pkg.SHA256, e.limits.MemoryMiB)
	return filepath.Join(e.rt.cfg.AgentDir, "cache", "snapshots", hex.EncodeToString(h.Sum(nil)))
}

// hasSnapshot reports whether a snapshot file exists for the extension
// (not whether it is good).
func (e *Extension) hasSnapshot() bool {
	path := e.snapshotPath()
	if path == "" {
		return false
	}
	_, err := os.Stat(path)
	return err == nil
}

// castagnoli is made on first use: making it computes the table (with
// SSE 4.2, its folding constants) at once, about 0.3 ms that every pi
// process paid in package initialisation, guests or not.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// encodeSnapshotHeader returns the header for state and an image of
// memBytes with the given CRC, padded to snapshotAlign.
func encodeSnapshotHeader(state snapshotState, memBytes uint64, imageCRC uint32) []byte {
	b := []byte(snapshotMagic)
	b = binary.LittleEndian.AppendUint32(b, snapshotFormat)
	b = binary.LittleEndian.AppendUint32(b, snapshotAlign)
	b = binary.LittleEndian.AppendUint64(b, memBytes)
	b = binary.LittleEndian.AppendUint64(b, uint64(state.clock))
	b = binary.LittleEndian.AppendUint64(b, state.rand)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(state.globals)))
	for _, g := range state.globals {
		b = binary.LittleEndian.AppendUint64(b, g)
	}
	b = binary.LittleEndian.AppendUint32(b, imageCRC)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli()))
	return append(b, make([]byte, snapshotAlign-len(b))...)
}

// decodeSnapshotHeader parses a header written by encodeSnapshotHeader.
func decodeSnapshotHeader(b []byte) (state snapshotState, memBytes uint64, imageCRC uint32, err error) {
	const fixed = 8 + 4 + 4 + 8 + 8 + 8 + 4
	if len(b) < fixed+8 || string(b[:8]) != snapshotMagic {
		return state, 0, 0, errors.New("not a snapshot")
	}
	le := binary.LittleEndian
	if v := le.Uint32(b[8:]); v != snapshotFormat {
		return state, 0, 0, fmt.Errorf("format %d, not %d", v, snapshotFormat)
	}
	if a := le.Uint32(b[12:]); a != snapshotAlign {
		return state, 0, 0, fmt.Errorf("image offset %d, not %d", a, snapshotAlign)
	}
	memBytes = le.Uint64(b[16:])
	state.clock = int64(le.Uint64(b[24:]))
	state.rand = le.Uint64(b[32:])
	n := le.Uint32(b[40:])
	end := fixed + 8*uint64(n) + 8
	if n > 1<<16 || end > uint64(len(b)) {
		return state, 0, 0, fmt.Errorf("%d globals do not fit the header", n)
	}
	if got, want := crc32.Checksum(b[:end-4], castagnoli()), le.Uint32(b[end-4:]); got != want {
		return state, 0, 0, errors.New("header checksum mismatch")
	}
	if memBytes%65536 != 0 || memBytes > 1<<32 {
		return state, 0, 0, fmt.Errorf("memory of %d bytes", memBytes)
	}
	state.globals = make([]uint64, n)
	for i := range state.globals {
		state.globals[i] = le.Uint64(b[fixed+8*i:])
	}
	return state, memBytes, le.Uint32(b[end-8:]), nil
}

// loadSnapshot opens and checks the snapshot at path: header, size and the
// image's CRC (read through a small buffer, so that checking makes no page
// of it resident in the process). maxBytes is the memory limit.
// os.ErrNotExist means there is none.
func loadSnapshot(path string, maxBytes uint64) (*snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	head := make([]byte, snapshotMaxHead)
	if _, err := io.ReadFull(f, head); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	state, memBytes, imageCRC, err := decodeSnapshotHeader(head)
	if err != nil {
		return nil, err
	}
	if memBytes > maxBytes {
		return nil, fmt.Errorf("memory of %d bytes exceeds the limit of %d", memBytes, maxBytes)
	}
	if want := int64(snapshotAlign) + int64(memBytes); st.Size() != want {
		return nil, fmt.Errorf("%d bytes, want %d (truncated?)", st.Size(), want)
	}
	s := &snapshot{path: path, state: state, memBytes: memBytes, imageOff: snapshotAlign}
	crc := uint32(0)
	if mapSnapshots {
		buf := head // read; the header is decoded and no longer needed
		for off := int64(0); off < int64(memBytes); {
			n, err := f.ReadAt(buf[:min(int64(len(buf)), int64(memBytes)-off)], snapshotAlign+off)
			if err != nil {
				return nil, fmt.Errorf("image: %w", err)
			}
			crc = crc32.Update(crc, castagnoli(), buf[:n])
			off += int64(n)
		}
	} else {
		s.image = make([]byte, memBytes)
		if _, err := f.ReadAt(s.image, snapshotAlign); err != nil {
			return nil, fmt.Errorf("image: %w", err)
		}
		crc = crc32.Checksum(s.image, castagnoli())
	}
	if crc != imageCRC {
		return nil, errors.New("image checksum mismatch")
	}
	return s, nil
}

// writeSnapshot saves the state of a freshly started instance at path:
// written to a temporary file in the same directory and renamed, so that a
// reader sees a whole snapshot or none. A failure only costs later starts
// their speed-up.
func writeSnapshot(path string, mem []byte, state snapshotState) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".snap-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename, a no-op
	head := encodeSnapshotHeader(state, uint64(len(mem)), crc32.Checksum(mem, castagnoli()))
	if _, err := f.Write(head); err != nil {
		f.Close()
		return err
	}
	// Pages of zeros are left as holes: most of a Go guest's memory is
	// reserved heap it has not used yet.
	const page = 4 << 10
	var zero [page]byte
	for off := 0; off < len(mem); off += page {
		p := mem[off:min(off+page, len(mem))]
		if bytes.Equal(p, zero[:len(p)]) {
			continue
		}
		if _, err := f.WriteAt(p, int64(len(head)+off)); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Truncate(int64(len(head) + len(mem))); err != nil {
		f.Close()
		return err
	}
	// On disk before it is renamed into place: a crash must not leave a
	// snapshot whose pages were never written (holes read as zeros, which
	// the image's CRC catches, but only at a cost on every start).
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	pruneSnapshots(filepath.Dir(path), time.Now())
	return nil
}

// pruneSnapshots removes the snapshots in dir written before now less
// staleCacheAge, and temporary files of writes that died as old. Every
// rebuilt module, changed limit or new pi version leaves its predecessor's
// snapshot behind (a few MiB each); removing every snapshot of that age
// when a new one is written bounds them, and costs a snapshot still in use
// one fresh start to write it again.
// A process still using one keeps its mapping (the file lives on until it
// is unmapped).
func pruneSnapshots(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > staleCacheAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// snapshotWatch is what newInstance records while an instance starts, to
// decide whether its state may be saved.
type snapshotWatch struct {
	path   string
	tables []uintptr // the tables right after instantiation
}

// capture returns the instance's state if its start was reproducible (see
// the comment at the top of this file).
func (i *instance) capture(w *snapshotWatch) (snapshotState, bool) {
	if i.hostCalls != 0 || i.logLines != 0 || i.stderr.String() != "" {
		return snapshotState{}, false
	}
	globals, ok := experimental.SnapshotGlobals(i.mod) // false without a memory
	if !ok || !slices.Equal(w.tables, experimental.TableReferences(i.mod)) {
		return snapshotState{}, false
	}
	return snapshotState{globals: globals, clock: i.clock.t, rand: i.rand.state}, true
}

// restore puts the snapshot's state into an instance instantiated from it
// (its memory allocated by snapshotMemory): the memory grown to the
// image's size, the globals and the fake sources set.
func (i *instance) restore(s *snapshot) error {
	// Globals first: RestoreGlobals also checks that the module has a
	// memory of its own (i.mem is never nil, even without one).
	if !experimental.RestoreGlobals(i.mod, s.state.globals) {
		return errors.New("the globals or the memory do not fit the module")
	}
	pages := uint32(s.memBytes / 65536)
	if cur := i.mem.Size() / 65536; cur > pages {
		return fmt.Errorf("the module starts with %d pages, the snapshot has %d", cur, pages)
	} else if _, ok := i.mem.Grow(pages - cur); !ok {
		return fmt.Errorf("cannot grow the memory to %d pages", pages)
	}
	i.clock.t = s.state.clock
	i.rand.state = s.state.rand
	return nil
}

// fakeClock is the monotonic clock of a guest without the clock grant: 0
// at the first reading, then 1 ms more at each (wazero's own fake clock,
// with its state where a snapshot can save it).
type fakeClock struct{ t int64 }

func (c *fakeClock) nanotime() int64 {
	c.t += 1e6
	return c.t - 1e6
}

// snapshotDiag formats a snapshot that could not be used.
func snapshotDiag(path string, err error) string {
	return "snapshot " + strconv.Quote(path) + " not used, the guest starts afresh: " + err.Error()
}
