package sandbox

// compatArch is the second system-call ABI an amd64 process can use: 32-bit
// x86 (int 0x80), whose calls the kernel numbers differently and reports
// under their own audit architecture. Without its checks a 32-bit program
// would get around the filter.
func compatArch() *sysTable {
	t, _ := sysTableFor("386")
	return t
}
