package sandbox

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// sysTable is what the seccomp filter needs to know of one system-call
// ABI: its audit architecture and the numbers of the calls it checks.
//
// The numbers are written out here rather than read from
// go-seccomp-bpf/arch, whose package initialisation builds the complete
// tables of five architectures (maps of some 400 entries each, 164 KB):
// every pi process and every sandboxed bash call's helper paid for them.
// TestSysTablesMatchSeccompLibrary checks every number against that
// library's tables.
type sysTable struct {
	name string // the label prefix, the library's name for the ABI
	id   uint32 // AUDIT_ARCH_*
	nr   map[string]uint32
}

// filteredCalls are the calls the filter checks; a table lists those its
// ABI has.
var filteredCalls = []string{"socket", "socketpair", "ioctl", "socketcall", "io_uring_setup", "sendto", "sendmsg", "sendmmsg"}

// sysTableFor returns the table of a Go architecture (GOARCH), or an
// error for one whose numbers pi does not have (the filter then cannot be
// built and commands are not started).
func sysTableFor(goarch string) (*sysTable, error) {
	switch goarch {
	case "amd64":
		return &sysTable{name: "x86_64", id: unix.AUDIT_ARCH_X86_64, nr: map[string]uint32{
			"socket": 41, "socketpair": 53, "ioctl": 16, "io_uring_setup": 425,
			"sendto": 44, "sendmsg": 46, "sendmmsg": 307,
		}}, nil
	case "386":
		return &sysTable{name: "i386", id: unix.AUDIT_ARCH_I386, nr: map[string]uint32{
			"socket": 359, "socketpair": 360, "ioctl": 54, "socketcall": 102, "io_uring_setup": 425,
			"sendto": 369, "sendmsg": 370, "sendmmsg": 345,
		}}, nil
	case "arm64":
		return &sysTable{name: "aarch64", id: unix.AUDIT_ARCH_AARCH64, nr: map[string]uint32{
			"socket": 198, "socketpair": 199, "ioctl": 29, "io_uring_setup": 425,
			"sendto": 206, "sendmsg": 211, "sendmmsg": 269,
		}}, nil
	case "arm":
		return &sysTable{name: "arm", id: unix.AUDIT_ARCH_ARM, nr: map[string]uint32{
			"socket": 281, "socketpair": 288, "ioctl": 54, "io_uring_setup": 425,
			"sendto": 290, "sendmsg": 296, "sendmmsg": 374,
		}}, nil
	}
	return nil, fmt.Errorf("seccomp: no system-call table for %s", goarch)
}

// nativeSysTable is the table of the architecture pi runs on.
func nativeSysTable() (*sysTable, error) { return sysTableFor(runtime.GOARCH) }
