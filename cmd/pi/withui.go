//go:build !noui

package main

// hasUI: this build has the interactive terminal UI and opens interactive
// sessions itself (a plain go build or go install, and bin/pi-ui).
const hasUI = true
