package expctxkeys

// ActiveDataSkippedKey is a context.Context key that makes instantiation
// leave a module's active data segments unapplied (PI-PATCH: restoring an
// instance whose memory the allocator supplies already initialised).
type ActiveDataSkippedKey struct{}
