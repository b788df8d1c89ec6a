//go:build !linux

package sandbox

// AdoptOrphans does nothing where pi does not confine commands.
func AdoptOrphans() {}

// KillDescendants does nothing where pi does not confine commands.
func KillDescendants() {}
