package settings

// piKeys are pi's own settings, which the established harness does not
// have. Add a key of your package here (one line), with Status Applied
// once it takes effect.
func piKeys() []Key {
	return []Key{
		// Read by core/permission (ParseRules checks the inside).
		{Name: "permissions", Kind: Object, Status: Applied},
		// Read by core/sandbox (its parser checks the inside).
		{Name: "sandbox", Kind: Object, Status: Applied},
		// Read and checked by core/resources.
		{Name: "sections", Kind: Any, Status: Applied},
		{Name: "variables", Kind: Any, Status: Applied},
		{Name: "maxPromptFileBytes", Kind: Any, Status: Applied},
		{Name: "suppressContexts", Kind: Any, Default: "false", Status: Applied},
		// Read by core/resources, applied by host: per-extension config keys.
		{Name: "extensionConfig", Kind: Object, Status: Applied},
	}
}
