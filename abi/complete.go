package abi

// ExportCommandComplete is the export that completes a command's argument
// while the person types it (the established harness's
// getArgumentCompletions). pi calls it only for commands whose manifest
// entry sets completions, with a short deadline: a guest that is slow or
// fails just offers nothing.
const ExportCommandComplete = "pi_command_complete"

// CommandCompleteEvent is the event of ExportCommandComplete: Name is the
// command's own name, Prefix what has been typed after "/name ".
type CommandCompleteEvent struct {
	Name   string `json:"name"`
	Prefix string `json:"prefix"`
}

// CompletionItem is one completion: Value replaces the typed prefix;
// Label (default Value) and Description are what the menu shows.
type CompletionItem struct {
	Value       string `json:"value"`
	Label       string `json:"label,omitempty"`
	Description string `json:"description,omitempty"`
}

// CommandCompleteResult is the result of ExportCommandComplete.
type CommandCompleteResult struct {
	Items []CompletionItem `json:"items,omitempty"`
}

// MaxCompletions bounds the items pi shows from one answer.
const MaxCompletions = 50
