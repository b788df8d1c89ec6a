package sandbox

import (
	"testing"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"

	"github.com/piwasm/pi/core/sandbox/confine"
)

// The filter's system-call numbers are pi's own (the library's tables cost
// every process their initialisation); they must be the library's, call
// for call, present or absent, on every architecture pi has a table for.
func TestSysTablesMatchSeccompLibrary(t *testing.T) {
	for _, goarch := range []string{"amd64", "386", "arm64", "arm"} {
		ours, err := sysTableFor(goarch)
		if err != nil {
			t.Fatal(err)
		}
		lib, err := arch.GetInfo(goarch)
		if err != nil {
			t.Fatal(err)
		}
		if ours.name != lib.Name || ours.id != uint32(lib.ID) {
			t.Errorf("%s: name %s id %#x, library %s %#x", goarch, ours.name, ours.id, lib.Name, uint32(lib.ID))
		}
		for _, call := range filteredCalls {
			want, wantOK := lib.SyscallNames[call]
			got, ok := ours.nr[call]
			if ok != wantOK || ok && got != uint32(want) {
				t.Errorf("%s %s: ours %d (%v), library %d (%v)", goarch, call, got, ok, want, wantOK)
			}
		}
		for call := range ours.nr {
			if _, ok := lib.SyscallNames[call]; !ok {
				t.Errorf("%s: %s is not a system call there", goarch, call)
			}
		}
	}
	if c := compatArch(); c != nil && c.id != uint32(arch.I386.ID) {
		t.Errorf("compat ABI %s", c.name)
	}
	if _, err := sysTableFor("mips"); err == nil {
		t.Error("a table for an architecture pi has no numbers for")
	}
	if confine.SeccompSupported() != seccomp.Supported() {
		t.Errorf("confine.SeccompSupported() = %v, the library says %v", confine.SeccompSupported(), seccomp.Supported())
	}
}
