// Package sibling finds the programs `make build` installs next to pi:
// bin/pi-sandbox, the small confining helper every sandboxed bash call
// starts, and bin/pi-ui, the build with the interactive terminal UI that
// the smaller bin/pi hands interactive sessions to (see RATIONALE.md, "Two
// binaries"). Both belong to the pi they are built with: each checks the
// build stamp the two share, so a stale or foreign program is refused.
package sibling
