package expctxkeys

// ActiveDataSkippedKey is a context.Context key that makes instantiation
// leave a module's active data segments unapplied (PI-PATCH: restoring an
// instance whose memory the allocator supplies already initialised).
type ActiveDataSkippedKey struct{}

// ModuleSourceKey is a context.Context key for a function that returns a
// module's bytes again (PI-PATCH: see experimental.WithModuleSource).
type ModuleSourceKey struct{}
