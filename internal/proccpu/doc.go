// Package proccpu reads the CPU time the calling process has used. Tests
// and benchmarks use it: on a shared machine it says what work costs
// better than the wall clock, which also counts the time spent waiting
// for a core.
package proccpu
