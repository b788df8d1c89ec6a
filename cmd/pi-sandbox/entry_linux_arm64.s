#include "textflag.h"

// pisandbox_rt0 is the helper's entry point (see entry.go): the kernel
// starts the process here with argc at 0(RSP) and the argv pointers after
// it. It compares argv[1] with selfNSArg byte by byte (argv[1] ends with
// a NUL, which no byte of selfNSArg is), on a match calls unshare and
// pins the process to one CPU, and jumps to the runtime's entry with the
// stack as the kernel left it.
TEXT pisandbox_rt0(SB),NOSPLIT|NOFRAME,$0
	MOVD	0(RSP), R0	// argc
	CMP	$2, R0
	BLT	start
	MOVD	16(RSP), R1	// argv[1]
	MOVD	·selfNSArg(SB), R2
	MOVD	·selfNSArg+8(SB), R3
	MOVD	$0, R4
next:
	CMP	R3, R4
	BEQ	end
	MOVBU	(R1)(R4), R5
	MOVBU	(R2)(R4), R6
	CMP	R5, R6
	BNE	start
	ADD	$1, R4
	B	next
end:
	MOVBU	(R1)(R4), R5
	CBNZ	R5, start
	MOVD	$0x10020000, R0	// CLONE_NEWUSER|CLONE_NEWNS
	MOVD	$97, R8	// SYS_unshare
	SVC
	MOVD	R0, ·unshareResult(SB)
	// Save the CPU affinity and pin the process to the first of its
	// CPUs (see entry_linux_amd64.s).
	MOVD	$0, R0
	MOVD	$128, R1	// len(cpuMask)
	MOVD	$·cpuMask(SB), R2
	MOVD	$123, R8	// SYS_sched_getaffinity
	SVC
	CMP	$0, R0
	BLE	start	// not saved: not pinned
	MOVD	R0, ·cpuMaskLen(SB)
	MOVD	R0, R3	// the saved length
	MOVD	$·cpuMask(SB), R2
	MOVD	$0, R4
word:
	CMP	R3, R4
	BGE	start
	MOVD	(R2)(R4), R5
	CBNZ	R5, found
	ADD	$8, R4
	B	word
found:
	RBIT	R5, R6
	CLZ	R6, R6	// the lowest CPU in this word
	MOVD	$1, R7
	LSL	R6, R7, R7
	MOVD	$·cpuOne(SB), R2
	MOVD	R7, (R2)(R4)
	MOVD	$0, R0
	MOVD	R3, R1
	MOVD	$122, R8	// SYS_sched_setaffinity
	SVC
	MOVD	R0, ·pinResult(SB)
start:
	JMP	_rt0_arm64_linux(SB)
