//go:build unix && !(linux || darwin || dragonfly || netbsd || openbsd || solaris)

package host

// mapNoReserve is zero where the system has no MAP_NORESERVE (FreeBSD,
// AIX): FreeBSD does not reserve swap for an anonymous private mapping
// in the first place, so the reservation costs address space only.
const mapNoReserve = 0
