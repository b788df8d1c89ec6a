package builtin

// nonblock: Windows has no FIFOs in the file system to wait on.
const nonblock = 0
