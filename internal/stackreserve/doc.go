// Package stackreserve grows a goroutine's stack once, while the goroutine
// is still shallow, to the size its work will need anyway.
//
// A goroutine starts with a 2 KiB stack that the runtime doubles as calls
// go deeper, copying it each time. Every copy walks every frame on the
// stack and looks each one up in the binary's function tables (PC-value
// tables and stack maps); those tables are laid out like the code, so a
// deep stack of frames from many packages reads pages from all over them,
// and Linux maps the 64 KiB around each page a process faults in. Growing
// the stack in one step at the start walks two or three frames instead:
// in `pi -p hello` the faults in those tables went from 65 to 42, and its
// peak RSS from 21.7 to 20.1 MiB. The stack is memory the goroutine would have used, and
// a garbage collection still shrinks it when it is mostly idle.
//
// Importing the package does this for the main goroutine (To16K) during
// package initialisation, before the deeper initialisers and main's own
// calls would grow it step by step.
package stackreserve
