package host

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/piwasm/pi/abi"
	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
)

// residentOf sums, over the mappings of files under dir in
// /proc/self/smaps, their size, their resident set and its anonymous part
// (KiB).
func residentOf(t *testing.T, dir string) (size, rss, anon int) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") { // a mapping's first line
			in = len(fields) >= 6 && strings.HasPrefix(fields[5], dir+string(filepath.Separator))
			continue
		}
		if !in || len(fields) < 2 {
			continue
		}
		n, _ := strconv.Atoi(fields[1])
		switch fields[0] {
		case "Size:":
			size += n
		case "Rss:":
			rss += n
		case "Anonymous:":
			anon += n
		}
	}
	return size, rss, anon
}

// pagesOnTouch reports whether the kernel maps a file's pages one by one
// when asked (experimental.MapPagesOnTouch).
func pagesOnTouch(t *testing.T) bool {
	f, err := os.Open(filepath.Join(wasmDir, "team-section.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, 1<<16, unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	ok := experimental.MapPagesOnTouch(m)
	// Whether the kernel offers it, asked directly: a userfaultfd for
	// user-mode faults with UFFD_FEATURE_WP_ASYNC (amd64 and arm64).
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" {
		if fd, _, errno := unix.Syscall(unix.SYS_USERFAULTFD, uintptr(unix.O_CLOEXEC|1), 0, 0); errno == 0 {
			defer unix.Close(int(fd))
			api := struct{ api, features, ioctls uint64 }{0xAA, 1 << 15, 0}
			_, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, 0xC018AA3F, uintptr(unsafe.Pointer(&api)))
			if errno == 0 && api.features&(1<<15) != 0 && !ok {
				t.Error("the kernel offers userfaultfd with WP_ASYNC, yet MapPagesOnTouch did not register a mapping")
			}
		}
	}
	return ok
}

// TestGuestStartMemory guards what the four example guests of bench/side.sh's
// "guests" case (`pi -p --no-memo` with team-section, policy-guard, yes-no
// and git-branch, the compile cache and snapshots warm) leave resident,
// counted without timing: the bytes the host allocates on its heap for
// the load and the calls (the modules, megabytes each, are read outside
// it and unmapped once decoded), and how much of the native code mapped
// from the compile cache and of the snapshot images mapped as the guests'
// memory is resident after the calls (only the pages touched, not the
// 64 KiB around each, where the kernel allows it).
func TestGuestStartMemory(t *testing.T) {
	ctx := context.Background()
	agent := t.TempDir()
	names := []string{"team-section", "policy-guard", "yes-no", "git-branch"}
	var dirs []string
	moduleBytes := 0
	for _, n := range names {
		dirs = append(dirs, examplePkg(t, n))
		st, err := os.Stat(filepath.Join(wasmDir, n+".wasm"))
		if err != nil {
			t.Fatal(err)
		}
		moduleBytes += int(st.Size())
	}
	// The package's shared compile cache (TestExample* compiled these
	// modules into it already) is linked, not copied: the same files,
	// held in the page cache as pi's own writes left them.
	shared := filepath.Join(agentDir, "cache", "wazero")
	filepath.WalkDir(shared, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(shared, path)
		dst := filepath.Join(agent, "cache", "wazero", rel)
		if os.MkdirAll(filepath.Dir(dst), 0o755) == nil {
			os.Link(path, dst)
		}
		return nil
	})
	grants := Grants{"git-branch": {Files: []string{".git/HEAD"}}}
	// round loads the four as `pi -p hello` does and runs the hooks that
	// apply to "hello" (yes-no's "?" prefix does not match: it stays cold).
	round := func(check func()) {
		t.Helper()
		r, err := NewRuntime(ctx, Config{AgentDir: agent, ProjectRoot: projectRoot})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close(ctx)
		exts, diags := r.Load(ctx, dirs, grants)
		if len(exts) != len(names) {
			t.Fatalf("loaded %d of %d: %v", len(exts), len(names), diags)
		}
		var sections []abi.Section
		for _, e := range exts {
			if e.Name() == "yes-no" {
				continue
			}
			res, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "hello", SystemPrompt: "base"}, nil)
			if err != nil {
				t.Fatalf("%s: %v", e.Name(), err)
			}
			for _, op := range res.Ops {
				if op.Op == abi.OpSetSection {
					sections = append(sections, abi.Section{Name: op.Name, Text: op.Text, Source: "extension:" + e.Name()})
				}
			}
		}
		if len(sections) != 3 {
			t.Fatalf("sections: %+v", sections)
		}
		if _, err := exts[1].Assemble(ctx, abi.AssembleEvent{Sections: sections}); err != nil {
			t.Fatalf("assemble: %v", err)
		}
		check()
	}
	// Two warm-up rounds: the first compiles, the second has snapshots
	// to write or restore.
	round(func() {})
	round(func() {})
	if n := len(snapshotFiles(t, agent)); n < 3 {
		t.Fatalf("%d snapshots, want one per guest that ran (3 or more)", n)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	round(func() {
		runtime.ReadMemStats(&after)
		heap := int(after.TotalAlloc - before.TotalAlloc)
		codeSize, codeRSS, _ := residentOf(t, filepath.Join(agent, "cache", "wazero"))
		imgSize, imgRSS, imgAnon := residentOf(t, filepath.Join(agent, "cache", "snapshots"))
		t.Logf("host heap allocated: %.1f MiB (modules: %.1f MiB)", float64(heap)/(1<<20), float64(moduleBytes)/(1<<20))
		t.Logf("native code resident: %d KiB of %d KiB mapped", codeRSS, codeSize)
		t.Logf("snapshot images resident: %d KiB read, %d KiB written, of %d KiB mapped", imgRSS-imgAnon, imgAnon, imgSize)
		// The modules are not read into the heap, and wazero builds
		// only the function definitions asked for: what the host
		// allocates is wazero's and its own structures, measured at 34 %
		// of the modules' size (47 % with every function's definition
		// built, 147 % with the modules read into the heap as well).
		if heap > moduleBytes*2/5 {
			t.Errorf("the host allocated %d bytes on its heap for the load and calls, more than 40 %% of the modules' %d: are the modules read into it, or every function's definition built?", heap, moduleBytes)
		}
		if codeSize == 0 || imgSize == 0 {
			t.Fatalf("no native code (%d KiB) or no snapshot image (%d KiB) mapped from the cache", codeSize, imgSize)
		}
		if !pagesOnTouch(t) {
			t.Log("the kernel maps pages with fault-around here (no userfaultfd WP_ASYNC): resident sizes not checked")
			return
		}
		// Measured: 10 % of the code resident and 5 % of the images read
		// in, against 31 % and 26 % with fault-around.
		if codeRSS > codeSize/4 {
			t.Errorf("%d KiB of the guests' %d KiB of native code resident: more than a quarter (fault-around?)", codeRSS, codeSize)
		}
		if imgRSS-imgAnon > imgSize/5 {
			t.Errorf("%d KiB of the snapshot images' %d KiB read in: more than a fifth (fault-around?)", imgRSS-imgAnon, imgSize)
		}
	})
}
