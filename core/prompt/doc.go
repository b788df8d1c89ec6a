// Package prompt turns prompt options into named sections, assembles and
// renders them, and records the result as system-message patches; it performs
// no I/O so every prompt is a pure function of its inputs.
package prompt
