package prompt

import "encoding/json"

// Tool describes a tool the model may call: the one-line snippet shown in the
// tools section, the rule bullets it contributes, and its JSON-schema
// parameters for provider requests.
type Tool struct {
	Name        string          `json:"name"`
	Snippet     string          `json:"snippet,omitempty"`
	Guidelines  []string        `json:"guidelines,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// defaultTools are the tools selected when nothing else is chosen; the CLI
// and the prompt builder both take them from DefaultTools.
var defaultTools = [...]string{"read", "bash", "edit", "write"}

// DefaultTools returns a fresh copy of the default tool selection.
func DefaultTools() []string { return append([]string(nil), defaultTools[:]...) }
