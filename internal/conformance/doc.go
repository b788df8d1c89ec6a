// Package conformance checks that a package's copies of the shared
// conformance cases (testdata/conformance) still equal the reference they
// were taken from, so table tests never pass against stale answers.
package conformance
