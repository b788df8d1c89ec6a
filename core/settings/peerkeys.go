package settings

import (
	"encoding/json"
	"fmt"
	"slices"
)

// thinkingLevels are the levels defaultThinkingLevel and
// modelThinkingLevels take.
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"}

// peerKeys are the keys of the established harness's settings.json (its
// docs/settings.md and schemas/settings.schema.json, version 1.6.0), with
// its names, defaults and scopes. Status says what pi does with each;
// docs/configuration.md has the same list for users.
func peerKeys() []Key {
	const noPackages = "pi installs WASM extension packages with pi install, fetching with the npm and git commands as they are configured"
	return []Key{
		{Name: "$schema", Kind: String, Status: Internal},
		{Name: "lastChangelogVersion", Kind: String, Status: Internal},
		{Name: "extensionChangelogVersions", Kind: Object, Status: Internal},
		{Name: "trackingId", Kind: String, Status: Internal},
		{Name: "deviceId", Kind: String, Status: Internal},

		// Model and thinking.
		{Name: "defaultProvider", Kind: String, Status: Applied},
		{Name: "defaultModel", Kind: String, Status: Applied},
		{Name: "defaultThinkingLevel", Kind: String, Enum: thinkingLevels, Default: `"medium"`, Status: Applied},
		{Name: "modelThinkingLevels", Kind: Object, Status: Applied, Check: checkLevels},
		{Name: "thinkingBudgets.minimal", Kind: Int, Status: Applied},
		{Name: "thinkingBudgets.low", Kind: Int, Status: Applied},
		{Name: "thinkingBudgets.medium", Kind: Int, Status: Applied},
		{Name: "thinkingBudgets.high", Kind: Int, Status: Applied},
		{Name: "enabledModels", Kind: Strings, Status: Applied},
		{Name: "hideThinkingBlock", Kind: Bool, Default: "false", Status: Applied},
		{Name: "showCacheMissNotices", Kind: Bool, Default: "false", Status: Applied},
		{Name: "cacheWarming", Kind: String, Enum: []string{"off", "streaming", "idle"}, Default: `"idle"`, Scope: GlobalOnly, Status: Applied},

		// Interaction.
		{Name: "steeringMode", Kind: String, Enum: []string{"all", "one-at-a-time"}, Default: `"one-at-a-time"`, Status: Applied},
		{Name: "followUpMode", Kind: String, Enum: []string{"all", "one-at-a-time"}, Default: `"one-at-a-time"`, Status: Applied},
		{Name: "queueMode", Kind: String, Enum: []string{"all", "one-at-a-time"}, Status: Internal},
		{Name: "externalEditor", Kind: String, Status: Applied},
		{Name: "doubleEscapeAction", Kind: String, Enum: []string{"tree", "fork", "none"}, Default: `"tree"`, Status: Applied},
		{Name: "treeFilterMode", Kind: String, Enum: []string{"default", "no-tools", "user-only", "labeled-only", "all"}, Default: `"default"`, Status: Applied},
		// core/resources checks it: it also takes pi's older values, with a warning.
		{Name: "defaultProjectTrust", Kind: Any, Default: `"ask"`, Scope: GlobalOnly, Status: Applied},

		// Tools.
		{Name: "defaultTools", Kind: Strings, Default: `["read","bash","edit","write"]`, Status: Applied},
		{Name: "codemode.mode", Kind: String, Enum: []string{"on", "only"}, Default: `"on"`, Status: NotApplicable, Note: "pi has no codemode tool"},
		{Name: "codemode.inlineBudget", Kind: Int, Default: "3000", Status: NotApplicable, Note: "pi has no codemode tool"},

		// Sessions and context.
		{Name: "sessionDir", Kind: String, Status: Applied},
		{Name: "sessionShareDestination", Kind: String, Enum: []string{"auto", "gist", "radius"}, Default: `"auto"`, Status: Applied},
		{Name: "compaction.enabled", Kind: Bool, Default: "true", Scope: GlobalOnly, Status: Applied},
		{Name: "compaction.reserveTokens", Kind: Int, Default: "16384", Status: Applied},
		{Name: "compaction.keepRecentTokens", Kind: Int, Default: "20000", Status: Applied},
		{Name: "compaction.modelOverrides", Kind: Object, Status: Applied},
		{Name: "branchSummary.reserveTokens", Kind: Int, Default: "16384", Status: Applied},
		{Name: "branchSummary.skipPrompt", Kind: Bool, Default: "false", Status: Applied},

		// Terminal and display.
		{Name: "theme", Kind: String, Default: `"system"`, Status: Applied, Note: "the interactive session's and /export's colours: a theme's name or LIGHT/DARK (core/theme)"},
		{Name: "quietStartup", Kind: Bool, Enum: []string{"header"}, Default: "false", Status: Applied},
		// pi's default stays inline drawing: docs/configuration.md says why.
		{Name: "tuiMode", Kind: String, Enum: []string{"regular", "fullscreen"}, Default: `"regular"`, Status: Applied},
		{Name: "fullscreenExitOutput", Kind: String, Enum: []string{"transcript", "resume-hint"}, Default: `"transcript"`, Status: Applied},
		{Name: "fullscreenScrollbar", Kind: String, Enum: []string{"auto", "always", "hidden"}, Default: `"auto"`, Status: Applied},
		{Name: "fullscreenCopyOnSelect", Kind: Bool, Default: "true", Status: NotApplicable, Note: "pi's full-screen mode has no text selection of its own: the terminal selects (shift and drag while pi reads the wheel) and copies as it is set up to"},
		{Name: "fullscreenWheelScrollLines", Kind: Number, Enum: []string{"auto"}, Default: `"auto"`, Status: Applied, Clamp: &[2]int{1, 100}},
		{Name: "editorPaddingX", Kind: Number, Default: "0", Status: Applied, Clamp: &[2]int{0, 3}},
		{Name: "outputPad", Kind: Int, Default: "1", Status: Applied, Check: checkOutputPad},
		{Name: "autocompleteMaxVisible", Kind: Number, Default: "5", Status: Applied, Clamp: &[2]int{3, 20}},
		{Name: "showHardwareCursor", Kind: Bool, Default: "false", Status: Applied},
		{Name: "terminal.showImages", Kind: Bool, Default: "true", Status: Applied},
		{Name: "terminal.imageWidthCells", Kind: Number, Default: "60", Status: Applied},
		{Name: "terminal.clearOnShrink", Kind: Bool, Default: "false", Status: NotApplicable, Note: "Bubble Tea redraws the whole frame whenever it gets shorter, clearing the rows it leaves"},
		{Name: "terminal.showTerminalProgress", Kind: Bool, Default: "false", Status: Applied},
		{Name: "terminal.hyperlinks", Kind: Bool, Enum: []string{"auto"}, Default: `"auto"`, Status: Applied},
		{Name: "terminal.images", Kind: Bool, Enum: []string{"kitty", "iterm2", "auto"}, Default: `"auto"`, Status: Applied, Check: checkImages},
		{Name: "terminal.trueColor", Kind: Bool, Enum: []string{"auto"}, Default: `"auto"`, Status: Applied},
		{Name: "images.autoResize", Kind: Bool, Default: "true", Status: Applied},
		{Name: "images.blockImages", Kind: Bool, Default: "false", Status: Applied},
		{Name: "markdown.codeBlockIndent", Kind: String, Default: `"  "`, Status: Applied},
		// pi draws every value as "off" does (the diagram's source as a
		// code block): no Go library renders mermaid to terminal text.
		{Name: "markdown.mermaid", Kind: String, Enum: []string{"off", "final", "streaming"}, Default: `"streaming"`, Status: Applied},

		// Network and retries.
		{Name: "transport", Kind: String, Enum: []string{"auto", "sse", "websocket", "websocket-cached"}, Default: `"auto"`, Note: "pi speaks SSE only"},
		{Name: "websockets", Kind: Bool, Status: Internal},
		{Name: "httpProxy", Kind: String, Scope: GlobalOnly, Status: Applied},
		{Name: "httpIdleTimeoutMs", Kind: Int, Enum: []string{"disabled"}, Default: "300000", Status: Applied},
		{Name: "websocketConnectTimeoutMs", Kind: Int, Enum: []string{"disabled"}, Default: "15000", Status: NotApplicable, Note: "pi speaks SSE only"},
		{Name: "retry.enabled", Kind: Bool, Default: "true", Status: Applied},
		{Name: "retry.maxRetries", Kind: Int, Default: "3", Status: Applied},
		{Name: "retry.baseDelayMs", Kind: Int, Default: "2000", Status: Applied},
		{Name: "retry.maxAgentDelayMs", Kind: Int, Default: "60000", Status: Applied},
		{Name: "retry.maxDelayMs", Kind: Int, Status: Internal},
		{Name: "retry.provider.timeoutMs", Kind: Int, Status: Applied},
		{Name: "retry.provider.maxRetries", Kind: Int, Default: "0", Status: Applied},
		{Name: "retry.provider.maxRetryDelayMs", Kind: Int, Default: "60000", Status: Applied},

		// Shell.
		{Name: "shellPath", Kind: String, Status: Applied},
		{Name: "shellCommandPrefix", Kind: String, Status: Applied},
		{Name: "npmCommand", Kind: Strings, Status: Applied, Note: "the command pi install runs to fetch a package's npm dependencies (never its install scripts)"},
		{Name: "selfUpdateCommand", Kind: Strings, Scope: GlobalOnly, Status: NotApplicable, Note: "pi does not update itself"},

		// Resources. core/resources checks extensions, skills and prompts.
		{Name: "packages", Kind: List, Status: Applied, Note: "packages of the established format (pi install records them here and loads their extensions, skills, prompts and themes); pi's WebAssembly packages are pinned in pi-packages.json"},
		{Name: "extensions", Kind: Any, Status: Applied, Note: "paths of WASM extension packages"},
		{Name: "skills", Kind: Any, Status: Applied},
		{Name: "prompts", Kind: Any, Status: Applied},
		{Name: "themes", Kind: Strings, Status: Applied, Note: "theme files or directories of them, relative to the settings file's directory"},
		{Name: "enableSkillCommands", Kind: Bool, Default: "true", Status: Applied},

		// Updates, telemetry and warnings.
		{Name: "collapseChangelog", Kind: Bool, Default: "false", Status: Applied},
		{Name: "enableInstallTelemetry", Kind: Bool, Default: "true", Status: NotApplicable, Note: "pi sends no telemetry"},
		{Name: "enableAnalytics", Kind: Bool, Default: "false", Status: NotApplicable, Note: "pi sends no analytics"},
		{Name: "warnings.anthropicExtraUsage", Kind: Bool, Default: "true", Status: NotApplicable, Note: "pi has no subscription sign-in"},
	}
}

// checkLevels checks modelThinkingLevels: "provider/modelId" to a level.
func checkLevels(raw json.RawMessage) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	for name, v := range m {
		var level string
		if json.Unmarshal(v, &level) != nil || !slices.Contains(thinkingLevels, level) {
			return fmt.Errorf("must map provider/modelId to one of %s (%q does not)", quoteList(thinkingLevels), name)
		}
	}
	return nil
}

// checkOutputPad checks outputPad: 0 or 1 columns.
// checkImages refuses true for terminal.images: a protocol is named, and
// false is the only boolean the established harness's schema takes.
func checkImages(raw json.RawMessage) error {
	if string(raw) == "true" {
		return fmt.Errorf(`must be "kitty", "iterm2", "auto" or false`)
	}
	return nil
}

func checkOutputPad(raw json.RawMessage) error {
	if s := string(raw); s != "0" && s != "1" {
		return fmt.Errorf("must be 0 or 1")
	}
	return nil
}
