package sandbox

import (
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// compatPrefix handles 32-bit x86 system calls, which an amd64 process can
// make (int 0x80) and which the seccomp library lets through unfiltered
// because their architecture differs from the native one. Without it a
// 32-bit program would get around network off. On i386 socket creation
// comes either as socket(2) (359) or through socketcall(2) (102) with
// SYS_SOCKET (1); the latter passes its arguments in memory, which seccomp
// cannot read, so every socketcall socket creation is refused.
func compatPrefix() []bpf.Instruction {
	const (
		auditArchI386  = 0x40000003
		nrSocketcall   = 102
		nrSocket       = 359
		nrIoUringSetup = 425
		sysSocket      = 1
		offNr, offArch = 0, 4
		offArg0        = 16
		retAllow       = unix.SECCOMP_RET_ALLOW
		retEPERM       = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	)
	block := []bpf.Instruction{
		/* 0 */ bpf.LoadAbsolute{Off: offNr, Size: 4},
		/* 1 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: nrSocketcall, SkipFalse: 3},
		/* 2 */ bpf.LoadAbsolute{Off: offArg0, Size: 4},
		/* 3 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: sysSocket, SkipTrue: 9},
		/* 4 */ bpf.RetConstant{Val: retAllow},
		/* 5 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: nrSocket, SkipFalse: 5},
		/* 6 */ bpf.LoadAbsolute{Off: offArg0, Size: 4},
		/* 7 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: afInet, SkipTrue: 5},
		/* 8 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: afInet6, SkipTrue: 4},
		/* 9 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: afPacket, SkipTrue: 3},
		/* 10 */ bpf.RetConstant{Val: retAllow},
		/* 11 */ bpf.JumpIf{Cond: bpf.JumpEqual, Val: nrIoUringSetup, SkipTrue: 1},
		/* 12 */ bpf.RetConstant{Val: retAllow},
		/* 13 */ bpf.RetConstant{Val: retEPERM},
	}
	return append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: auditArchI386, SkipFalse: uint8(len(block))},
	}, block...)
}
