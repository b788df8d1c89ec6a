// Package lazyre compiles a package's regular expressions on first use
// instead of in package initialisation.
//
// Go initialises every linked package in every process: each `pi -p`, and
// each sandboxed bash call's helper, which links the sandbox package. A
// regexp compiled at package level is paid for by every one of them, used
// or not (the sandbox's explanations of a failed command cost its helper a
// fifth of its start-up).
package lazyre
