#include "textflag.h"

// pisandbox_rt0 is the helper's entry point (see entry.go): the kernel
// starts the process here with argc at 0(RSP) and the argv pointers after
// it. It compares argv[1] with selfNSArg byte by byte (argv[1] ends with
// a NUL, which no byte of selfNSArg is), calls unshare on a match, and
// jumps to the runtime's entry with the stack as the kernel left it.
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
start:
	JMP	_rt0_arm64_linux(SB)
