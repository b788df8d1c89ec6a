// Package makerun runs the repository's Makefile from a test, for the
// tests that need binaries built exactly as `make build` builds them (the
// link flags live in the Makefile alone). It is test support: only
// _test.go files import it.
package makerun
