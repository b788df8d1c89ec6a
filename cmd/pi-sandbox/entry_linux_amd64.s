#include "textflag.h"

// pisandbox_rt0 is the helper's entry point (see entry.go): the kernel
// starts the process here with argc at 0(SP) and the argv pointers after
// it. It compares argv[1] with selfNSArg byte by byte (argv[1] ends with
// a NUL, which no byte of selfNSArg is), on a match calls unshare and
// pins the process to one CPU, and jumps to the runtime's entry with the
// stack as the kernel left it.
TEXT pisandbox_rt0(SB),NOSPLIT|NOFRAME,$0
	MOVQ	0(SP), AX	// argc
	CMPQ	AX, $2
	JLT	start
	MOVQ	16(SP), SI	// argv[1]
	MOVQ	·selfNSArg(SB), DI
	MOVQ	·selfNSArg+8(SB), CX
	XORQ	BX, BX
next:
	CMPQ	BX, CX
	JEQ	end
	MOVB	(SI)(BX*1), AX
	CMPB	AX, (DI)(BX*1)
	JNE	start
	INCQ	BX
	JMP	next
end:
	CMPB	(SI)(BX*1), $0
	JNE	start
	MOVQ	$272, AX	// SYS_unshare
	MOVQ	$0x10020000, DI	// CLONE_NEWUSER|CLONE_NEWNS
	SYSCALL
	MOVQ	AX, ·unshareResult(SB)
	// Save the CPU affinity and pin the process to the first of its
	// CPUs, so the runtime sizes itself for one (GOMAXPROCS 1) and
	// starts no threads to run its background work in parallel;
	// confine puts the saved affinity back before the execve.
	MOVQ	$204, AX	// SYS_sched_getaffinity
	XORQ	DI, DI
	MOVQ	$128, SI	// len(cpuMask)
	LEAQ	·cpuMask(SB), DX
	SYSCALL
	CMPQ	AX, $0
	JLE	start	// not saved: not pinned
	MOVQ	AX, ·cpuMaskLen(SB)
	LEAQ	·cpuMask(SB), SI
	XORQ	BX, BX
word:
	CMPQ	BX, AX
	JGE	start
	MOVQ	(SI)(BX*1), CX
	TESTQ	CX, CX
	JNZ	found
	ADDQ	$8, BX
	JMP	word
found:
	BSFQ	CX, CX	// the lowest CPU in this word
	MOVQ	$1, R8
	SHLQ	CX, R8
	LEAQ	·cpuOne(SB), DX
	MOVQ	R8, (DX)(BX*1)
	MOVQ	AX, SI	// the saved length
	MOVQ	$203, AX	// SYS_sched_setaffinity
	XORQ	DI, DI
	SYSCALL
	MOVQ	AX, ·pinResult(SB)
start:
	JMP	_rt0_amd64_linux(SB)
