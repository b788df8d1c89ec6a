// Package goinstall holds one test: pi installs as Go tools are, with
// `go install github.com/piwasm/pi/cmd/pi@VERSION` from a module proxy.
// The package has no code; it exists so the test runs once, apart from
// the slow cmd/pi package.
package goinstall
