// Package faultaround turns off Linux's fault-around for a file mapping
// (PI-PATCH), so that only the pages a process touches count in its
// resident set.
package faultaround
