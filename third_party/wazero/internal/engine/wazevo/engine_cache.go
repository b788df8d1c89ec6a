package wazevo

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/internal/engine/wazevo/backend"
	"github.com/tetratelabs/wazero/internal/engine/wazevo/ssa"
	"github.com/tetratelabs/wazero/internal/engine/wazevo/wazevoapi"
	"github.com/tetratelabs/wazero/internal/filecache"
	"github.com/tetratelabs/wazero/internal/platform"
	"github.com/tetratelabs/wazero/internal/u32"
	"github.com/tetratelabs/wazero/internal/u64"
	"github.com/tetratelabs/wazero/internal/wasm"
)

// PI-PATCH: the Castagnoli table is built on first use, not in package
// initialisation, which every pi process ran (about 0.3 ms of `pi -p hello`,
// which loads no guest).
var crcTable = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// fileCacheKey returns a key for the file cache.
// In order to avoid collisions with the existing compiler, we do not use m.ID directly,
// but instead we rehash it with magic.
func fileCacheKey(m *wasm.Module) (ret filecache.Key) {
	s := sha256.New()
	s.Write(m.ID[:])
	s.Write(magic)
	// Write the CPU features so that we can cache the compiled module for the same CPU.
	// This prevents the incompatible CPU features from being used.
	cpu := platform.CpuFeatures.Raw()
	// Reuse the `ret` buffer to write the first 8 bytes of the CPU features so that we can avoid the allocation.
	binary.LittleEndian.PutUint64(ret[:8], cpu)
	s.Write(ret[:8])
	// Finally, write the hash to the ret buffer.
	s.Sum(ret[:0])
	return
}

// HasCompiledModule reports whether the module with this ID is compiled in
// memory or has an entry in the file cache (PI-PATCH). wazero.Runtime's
// CompileModule then skips decoding and validating its function bodies:
// an entry exists only for a module that was validated when it was
// compiled, and its key is the SHA-256 of the module's bytes.
func (e *engine) HasCompiledModule(id wasm.ModuleID, listeners bool) bool {
	if listeners {
		return false
	}
	e.mux.Lock()
	_, ok := e.compiledModules[id]
	e.mux.Unlock()
	if ok {
		return true
	}
	fc, ok := e.fileCache.(interface{ Has(filecache.Key) bool })
	if !ok {
		return false
	}
	return fc.Has(fileCacheKey(&wasm.Module{ID: id}))
}

func (e *engine) addCompiledModule(module *wasm.Module, cm *compiledModule) (c *compiledModule, err error) {
	c = e.addCompiledModuleToMemory(module, cm)
	if !module.IsHostModule && e.fileCache != nil {
		err = e.addCompiledModuleToCache(module, c)
	}
	return
}

func (e *engine) getCompiledModule(module *wasm.Module, listeners []experimental.FunctionListener, ensureTermination bool) (cm *compiledModule, ok bool, err error) {
	cm, ok = e.getCompiledModuleFromMemory(module, true)
	if ok {
		return
	}
	cm, ok, err = e.getCompiledModuleFromCache(module)
	if ok {
		cm.parent = e
		cm.module = module
		cm.sharedFunctions = e.sharedFunctions
		cm.ensureTermination = ensureTermination
		cm.offsets = wazevoapi.NewModuleContextOffsetData(module, len(listeners) > 0)
		if len(listeners) > 0 {
			cm.listeners = listeners
			cm.listenerBeforeTrampolines = make([]*byte, len(module.TypeSection))
			cm.listenerAfterTrampolines = make([]*byte, len(module.TypeSection))
			for i := range module.TypeSection {
				typ := &module.TypeSection[i]
				before, after := e.getListenerTrampolineForType(typ)
				cm.listenerBeforeTrampolines[i] = before
				cm.listenerAfterTrampolines[i] = after
			}
		}
		e.addCompiledModuleToMemory(module, cm)
		ssaBuilder := ssa.NewBuilder()
		machine := newMachine()
		be := backend.NewCompiler(context.Background(), machine, ssaBuilder)
		cm.executables.compileEntryPreambles(module, machine, be)

		// Set the finalizer.
		e.setFinalizer(cm.executables, executablesFinalizer)
	}
	return
}

func (e *engine) addCompiledModuleToMemory(m *wasm.Module, cm *compiledModule) *compiledModule {
	e.mux.Lock()
	defer e.mux.Unlock()
	if c, ok := e.compiledModules[m.ID]; ok {
		c.refCount++
		return c.compiledModule
	}
	e.compiledModules[m.ID] = &compiledModuleWithCount{compiledModule: cm, refCount: 1}
	if len(cm.executable) > 0 {
		e.addCompiledModuleToSortedList(cm)
	}
	return cm
}

func (e *engine) getCompiledModuleFromMemory(module *wasm.Module, increaseRefCount bool) (cm *compiledModule, ok bool) {
	e.mux.Lock()
	defer e.mux.Unlock()

	cmWithCount, ok := e.compiledModules[module.ID]
	if ok {
		cm = cmWithCount.compiledModule
		if increaseRefCount {
			cmWithCount.refCount++
		}
	}
	return
}

func (e *engine) addCompiledModuleToCache(module *wasm.Module, cm *compiledModule) (err error) {
	if e.fileCache == nil || module.IsHostModule {
		return
	}
	err = e.fileCache.Add(fileCacheKey(module), serializeCompiledModule(e.wazeroVersion, cm))
	return
}

func (e *engine) getCompiledModuleFromCache(module *wasm.Module) (cm *compiledModule, hit bool, err error) {
	if e.fileCache == nil || module.IsHostModule {
		return
	}

	// Check if the entries exist in the external cache.
	var cached io.ReadCloser
	cached, hit, err = e.fileCache.Get(fileCacheKey(module))
	if !hit || err != nil {
		return
	}

	// Otherwise, we hit the cache on external cache.
	// We retrieve *code structures from `cached`.
	var staleCache bool
	// Note: cached.Close is ensured to be called in deserializeCodes.
	cm, staleCache, err = deserializeCompiledModule(e.wazeroVersion, cached)
	if err != nil {
		// PI-PATCH: a damaged entry (truncated, checksum mismatch) is
		// removed and the module compiled again, as for a stale one,
		// rather than failing the compilation for good.
		return nil, false, e.fileCache.Delete(fileCacheKey(module))
	} else if staleCache {
		return nil, false, e.fileCache.Delete(fileCacheKey(module))
	}
	return
}

var magic = []byte{'W', 'A', 'Z', 'E', 'V', 'O'}

func serializeCompiledModule(wazeroVersion string, cm *compiledModule) io.Reader {
	buf := bytes.NewBuffer(nil)
	// First 6 byte: WAZEVO header.
	buf.Write(magic)
	// Next 1 byte: length of version:
	buf.WriteByte(byte(len(wazeroVersion)))
	// Version of wazero.
	buf.WriteString(wazeroVersion)
	// Number of *code (== locally defined functions in the module): 4 bytes.
	buf.Write(u32.LeBytes(uint32(len(cm.functionOffsets))))
	for _, offset := range cm.functionOffsets {
		// The offset of this function in the executable (8 bytes).
		buf.Write(u64.LeBytes(uint64(offset)))
	}
	// The length of code segment (8 bytes).
	buf.Write(u64.LeBytes(uint64(len(cm.executable))))
	// PI-PATCH: padding (4 bytes of length, then zeros) so that the native
	// code starts at a multiple of codeFileAlign in the file, where it can
	// be mapped from (see deserializeCompiledModule).
	pad := (codeFileAlign - (buf.Len()+4)%codeFileAlign) % codeFileAlign
	buf.Write(u32.LeBytes(uint32(pad)))
	buf.Write(make([]byte, pad))
	// Append the native code.
	buf.Write(cm.executable)
	// Append checksum.
	checksum := crc32.Checksum(cm.executable, crcTable())
	buf.Write(u32.LeBytes(checksum))
	if sm := cm.sourceMap; len(sm.executableOffsets) > 0 {
		buf.WriteByte(1) // indicates that source map is present.
		l := len(sm.wasmBinaryOffsets)
		buf.Write(u64.LeBytes(uint64(l)))
		executableAddr := uintptr(unsafe.Pointer(&cm.executable[0]))
		for i := 0; i < l; i++ {
			buf.Write(u64.LeBytes(sm.wasmBinaryOffsets[i]))
			// executableOffsets is absolute address, so we need to subtract executableAddr.
			buf.Write(u64.LeBytes(uint64(sm.executableOffsets[i] - executableAddr)))
		}
	} else {
		buf.WriteByte(0) // indicates that source map is not present.
	}
	// Catch clause table: number of try_tables (4 bytes), then for each:
	//   clause count (4 bytes), then for each clause: kind (1 byte) + tagIndex (4 bytes).
	buf.Write(u32.LeBytes(uint32(len(cm.catchClauseTable))))
	for _, clauses := range cm.catchClauseTable {
		buf.Write(u32.LeBytes(uint32(len(clauses))))
		for _, c := range clauses {
			buf.WriteByte(c.Kind)
			buf.Write(u32.LeBytes(c.TagIndex))
		}
	}
	return bytes.NewReader(buf.Bytes())
}

// codeFileAlign is where the native code starts in a cache file (PI-PATCH):
// a multiple of every page size wazero runs with (4, 16 and 64 KiB).
const codeFileAlign = 64 << 10

// countingReader counts the bytes read through it (PI-PATCH): the offset in
// the cache file where the native code starts.
type countingReader struct {
	r *bufio.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := io.ReadFull(c.r, p) // every read of the format wants all of p
	c.n += int64(n)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	return n, err
}

// mapCode maps the native code of a cache entry from its file (PI-PATCH),
// when the entry is a file, the platform allows it and the code is aligned
// to a page; ok=false means "read it instead". The file's size is checked
// first: touching a mapped page past the end of a file is a fault. The
// file's checksum is not computed, since that would read every page in;
// the entry was written whole (to a temporary file, synced, then renamed).
func mapCode(reader io.Reader, offset int64, size int) (code []byte, ok bool, err error) {
	f, isFile := reader.(*os.File)
	if !isFile || !platform.MmapCodeFileSupported || offset%int64(os.Getpagesize()) != 0 {
		return nil, false, nil
	}
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if st.Size() < offset+int64(size)+4 {
		return nil, false, fmt.Errorf("compilationcache: entry of %d bytes cut short (code ends at %d)", st.Size(), offset+int64(size))
	}
	code, err = platform.MmapCodeFile(f, offset, size)
	if err != nil {
		return nil, false, nil
	}
	return code, true, nil
}

func deserializeCompiledModule(wazeroVersion string, file io.ReadCloser) (cm *compiledModule, staleCache bool, err error) {
	defer file.Close()
	// PI-PATCH: read through a buffer (the format has a small read per
	// function), counting the offset.
	reader := &countingReader{r: bufio.NewReaderSize(file, 32<<10)}
	cacheHeaderSize := len(magic) + 1 /* version size */ + len(wazeroVersion) + 4 /* number of functions */

	// Read the header before the native code.
	header := make([]byte, cacheHeaderSize)
	n, err := reader.Read(header)
	if err != nil {
		return nil, false, fmt.Errorf("compilationcache: error reading header: %v", err)
	}

	if n != cacheHeaderSize {
		return nil, false, fmt.Errorf("compilationcache: invalid header length: %d", n)
	}

	if !bytes.Equal(header[:len(magic)], magic) {
		return nil, false, fmt.Errorf(
			"compilationcache: invalid magic number: got %s but want %s", magic, header[:len(magic)])
	}

	// Check the version compatibility.
	versionSize := int(header[len(magic)])

	cachedVersionBegin, cachedVersionEnd := len(magic)+1, len(magic)+1+versionSize
	if cachedVersionEnd >= len(header) {
		staleCache = true
		return
	} else if cachedVersion := string(header[cachedVersionBegin:cachedVersionEnd]); cachedVersion != wazeroVersion {
		staleCache = true
		return
	}

	functionsNum := binary.LittleEndian.Uint32(header[len(header)-4:])
	cm = &compiledModule{functionOffsets: make([]int, functionsNum), executables: &executables{}}

	var eightBytes [8]byte
	for i := uint32(0); i < functionsNum; i++ {
		// Read the offset of each function in the executable.
		var offset uint64
		if offset, err = readUint64(reader, &eightBytes); err != nil {
			err = fmt.Errorf("compilationcache: error reading func[%d] executable offset: %v", i, err)
			return
		}
		cm.functionOffsets[i] = int(offset)
	}

	executableLen, err := readUint64(reader, &eightBytes)
	if err != nil {
		err = fmt.Errorf("compilationcache: error reading executable size: %v", err)
		return
	}

	// PI-PATCH: the padding before the code.
	if _, err = io.ReadFull(reader, eightBytes[:4]); err != nil {
		return nil, false, fmt.Errorf("compilationcache: error reading padding: %v", err)
	}
	if pad := binary.LittleEndian.Uint32(eightBytes[:4]); pad >= codeFileAlign {
		return nil, false, fmt.Errorf("compilationcache: padding of %d bytes", pad)
	} else if _, err = reader.r.Discard(int(pad)); err != nil {
		return nil, false, fmt.Errorf("compilationcache: error reading padding: %v", err)
	}
	reader.n += int64(binary.LittleEndian.Uint32(eightBytes[:4]))

	if executableLen > 0 {
		if code, mapped, err := mapCode(file, reader.n, int(executableLen)); err != nil {
			return nil, false, err
		} else if mapped {
			// Go on reading after the code (the checksum is left unread).
			f := file.(*os.File)
			if _, err = f.Seek(reader.n+int64(executableLen)+4, io.SeekStart); err != nil {
				_ = platform.MunmapCodeSegment(code)
				return nil, false, err
			}
			reader.r.Reset(f)
			cm.executable = code
			return deserializeTail(reader, cm)
		}
		executable, err := platform.MmapCodeSegment(int(executableLen))
		if err != nil {
			err = fmt.Errorf("compilationcache: error mmapping executable (len=%d): %v", executableLen, err)
			return nil, false, err
		}

		_, err = io.ReadFull(reader, executable)
		if err != nil {
			err = fmt.Errorf("compilationcache: error reading executable (len=%d): %v", executableLen, err)
			return nil, false, err
		}

		expected := crc32.Checksum(executable, crcTable())
		if _, err = io.ReadFull(reader, eightBytes[:4]); err != nil {
			return nil, false, fmt.Errorf("compilationcache: could not read checksum: %v", err)
		} else if checksum := binary.LittleEndian.Uint32(eightBytes[:4]); expected != checksum {
			return nil, false, fmt.Errorf("compilationcache: checksum mismatch (expected %d, got %d)", expected, checksum)
		}

		if err = platform.MprotectCodeSegment(executable); err != nil {
			return nil, false, err
		}
		cm.executable = executable
	}
	return deserializeTail(reader, cm)
}

// deserializeTail reads what follows the native code: the source map and
// the catch clauses (PI-PATCH: split out of deserializeCompiledModule).
func deserializeTail(reader io.Reader, cm *compiledModule) (*compiledModule, bool, error) {
	var eightBytes [8]byte
	var err error
	fail := func(err error) (*compiledModule, bool, error) {
		if len(cm.executable) > 0 {
			_ = platform.MunmapCodeSegment(cm.executable)
		}
		return nil, false, err
	}
	if _, err := io.ReadFull(reader, eightBytes[:1]); err != nil {
		return fail(fmt.Errorf("compilationcache: error reading source map presence: %v", err))
	}

	if eightBytes[0] == 1 {
		sm := &cm.sourceMap
		sourceMapLen, err := readUint64(reader, &eightBytes)
		if err != nil {
			return fail(fmt.Errorf("compilationcache: error reading source map length: %v", err))
		}
		executableOffset := uintptr(unsafe.Pointer(&cm.executable[0]))
		for i := uint64(0); i < sourceMapLen; i++ {
			wasmBinaryOffset, err := readUint64(reader, &eightBytes)
			if err != nil {
				return fail(fmt.Errorf("compilationcache: error reading source map[%d] wasm binary offset: %v", i, err))
			}
			executableRelativeOffset, err := readUint64(reader, &eightBytes)
			if err != nil {
				return fail(fmt.Errorf("compilationcache: error reading source map[%d] executable offset: %v", i, err))
			}
			sm.wasmBinaryOffsets = append(sm.wasmBinaryOffsets, wasmBinaryOffset)
			// executableOffsets is absolute address, so we need to add executableOffset.
			sm.executableOffsets = append(sm.executableOffsets, uintptr(executableRelativeOffset)+executableOffset)
		}
	}
	// Catch clause table.
	if _, err = io.ReadFull(reader, eightBytes[:4]); err != nil {
		// Treat old cache entries without catch clause data as stale (trigger recompile).
		_, _, _ = fail(nil)
		return nil, true, nil
	}
	tableLen := binary.LittleEndian.Uint32(eightBytes[:4])
	if tableLen > 0 {
		cm.catchClauseTable = make([][]wazevoapi.CatchClauseInstance, tableLen)
		for i := uint32(0); i < tableLen; i++ {
			if _, err = io.ReadFull(reader, eightBytes[:4]); err != nil {
				return fail(fmt.Errorf("compilationcache: error reading catch clause count for try_table[%d]: %v", i, err))
			}
			clauseCount := binary.LittleEndian.Uint32(eightBytes[:4])
			clauses := make([]wazevoapi.CatchClauseInstance, clauseCount)
			for j := uint32(0); j < clauseCount; j++ {
				if _, err = io.ReadFull(reader, eightBytes[:5]); err != nil {
					return fail(fmt.Errorf("compilationcache: error reading catch clause[%d][%d]: %v", i, j, err))
				}
				clauses[j] = wazevoapi.CatchClauseInstance{
					Kind:     eightBytes[0],
					TagIndex: binary.LittleEndian.Uint32(eightBytes[1:5]),
				}
			}
			cm.catchClauseTable[i] = clauses
		}
	}
	return cm, false, nil
}

// readUint64 strictly reads an uint64 in little-endian byte order, using the
// given array as a buffer. This returns io.EOF if less than 8 bytes were read.
func readUint64(reader io.Reader, b *[8]byte) (uint64, error) {
	s := b[0:8]
	n, err := reader.Read(s)
	if err != nil {
		return 0, err
	} else if n < 8 { // more strict than reader.Read
		return 0, io.EOF
	}

	// Read the u64 from the underlying buffer.
	ret := binary.LittleEndian.Uint64(s)
	return ret, nil
}
