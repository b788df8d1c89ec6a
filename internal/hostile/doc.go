// Package hostile holds the small hostile programs the sandbox's tests run
// as confined commands. A test binary runs one when its first argument
// names it (see [Main]), so no program has to be compiled during a test.
package hostile
