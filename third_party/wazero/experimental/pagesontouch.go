package experimental

import "github.com/tetratelabs/wazero/internal/faultaround"

// MapPagesOnTouch asks the kernel to map the pages of b, the start of a
// file mapping made with mmap, into the process only as they are touched,
// instead of with the cached pages around each (Linux's fault-around),
// which would count in the process's resident set without being used.
// wazero does this for native code it maps from the compilation cache;
// a caller mapping other files (pi: the memory image of a snapshot) can
// ask the same. It reports whether the kernel agreed (Linux 6.7 and later,
// when userfaultfd is permitted); otherwise nothing changes.
// PI-PATCH: see PI-PATCH.md.
func MapPagesOnTouch(b []byte) bool { return faultaround.Off(b) }
