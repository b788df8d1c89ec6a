// Package diag holds the one shape of a problem pi reports without stopping:
// resources, the extension host, the hook dispatcher and the CLI all report
// a Diagnostic, so every stage prints and emits the same fields the same way.
package diag
