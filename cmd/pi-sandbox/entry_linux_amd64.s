#include "textflag.h"

// pisandbox_rt0 is the helper's entry point (see entry.go): the kernel
// starts the process here with argc at 0(SP) and the argv pointers after
// it. It compares argv[1] with selfNSArg byte by byte (argv[1] ends with
// a NUL, which no byte of selfNSArg is), calls unshare on a match, and
// jumps to the runtime's entry with the stack as the kernel left it.
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
start:
	JMP	_rt0_amd64_linux(SB)
