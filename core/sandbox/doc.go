// Package sandbox decides where the bash tool and the file tools may write
// and whether commands may use the network, and enforces that on Linux.
//
// A [Policy] is built once per run from flags, settings and the run's
// directories ([Build]). Bash commands run through [Shell], which starts a
// small helper (cmd/pi-sandbox, or pi re-executing itself with
// [HelperArg]) that confines itself as package confine does (Landlock, a
// seccomp filter pi compiled for it, mounts in its own namespaces) and
// then executes bash; pi itself is never confined. The file tools call
// [Policy.CheckWrite] on resolved paths so they cannot reach what bash
// cannot. [Probe] reports what the running kernel can enforce, and
// [Explain] recognises command failures that are likely sandbox denials.
package sandbox
