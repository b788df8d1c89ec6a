package abi

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Hooks of the agent loop, as written in a manifest's hooks list.
const (
	// HookToolCall sees every tool call before it runs; it may block the
	// call or replace its arguments.
	HookToolCall = "tool_call"
	// HookToolResult sees every finished call; it may patch the result.
	HookToolResult = "tool_result"
	// HookTurnEnd observes the end of a turn.
	HookTurnEnd = "turn_end"
	// HookAgentEnd observes the end of a run of the agent.
	HookAgentEnd = "agent_end"
)

// Exports of the loop hooks and of extension tools. Each has the Extism
// signature () -> i32, like the prompt hooks.
const (
	ExportToolCall   = "pi_tool_call"
	ExportToolResult = "pi_tool_result"
	ExportTurnEnd    = "pi_turn_end"
	ExportAgentEnd   = "pi_agent_end"
	// ExportTool runs one of the tools the manifest declares (event
	// ToolEvent, result ToolResult). A module that declares tools must
	// export it; one export serves every tool, told apart by the event's
	// toolName.
	ExportTool = "pi_tool"
)

// HostToolUpdate streams a partial result of the tool call in progress:
//
//	pi_tool_update(ptr, len i32)
//
// The bytes are UTF-8 text, shown to the user as the call's output so far
// (each update replaces the previous one). Outside a tool call it does
// nothing. HostToolUpdateBlock is the same in Extism's conventions: its
// argument is the offset of an Extism memory block holding the text.
const (
	HostToolUpdate      = "pi_tool_update"
	HostToolUpdateBlock = "pi_tool_update_block"
)

// KeyToolCallID is the id of the call a tool_call or tool_result hook is
// looking at (pi_fetch). The id is not in those events: it changes with
// every call, and a guest that never reads it can then be memoised.
const KeyToolCallID = "tool_call_id"

// MaxToolUpdates bounds the partial results one tool call may stream; later
// ones are dropped (the final result is unaffected).
const MaxToolUpdates = 1000

// ToolCallEvent is the event of HookToolCall. Input holds the arguments as
// pi validated them (or as an earlier extension replaced them). pi leaves
// ToolCallID empty in hook events and serves it under KeyToolCallID.
type ToolCallEvent struct {
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
	// Source is "builtin" or "extension:<name>": who provides the tool.
	Source string          `json:"source"`
	Input  json.RawMessage `json:"input"`
	// Cwd is the session's working directory (relative paths in the
	// arguments are relative to it).
	Cwd string `json:"cwd,omitempty"`
}

// ToolCallResult is the result of HookToolCall. Block refuses the call
// (Reason is shown to the model); the first block wins and later
// extensions are not asked. Input, when set, replaces the arguments: it
// must be a JSON object, and pi validates it against the tool's schema
// again before anything runs. Both empty: the call goes on unchanged.
type ToolCallResult struct {
	Block  bool            `json:"block,omitempty"`
	Reason string          `json:"reason,omitempty"`
	Input  json.RawMessage `json:"input,omitempty"`
}

// ContentPart is one piece of a tool result's content: Type "text" (Text)
// or "image" (Data base64, MimeType).
type ContentPart struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// ToolResultEvent is the event of HookToolResult: a finished call and its
// result as earlier extensions in the chain left it.
type ToolResultEvent struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Source     string          `json:"source"`
	Input      json.RawMessage `json:"input"`
	Content    []ContentPart   `json:"content"`
	IsError    bool            `json:"isError,omitempty"`
}

// ToolResultPatch is the result of HookToolResult. A nil field keeps the
// current value: Content, when non-nil, replaces the whole content;
// IsError, when non-nil, replaces the error flag.
type ToolResultPatch struct {
	Content []ContentPart `json:"content,omitempty"`
	IsError *bool         `json:"isError,omitempty"`
}

// TurnEndEvent is the event of HookTurnEnd. Message is the assistant
// message of the turn and ToolResults its tool result messages, in the
// transcript's JSON form. The hook only observes: its result is ignored
// (answer {"result":{}}).
type TurnEndEvent struct {
	TurnIndex   int               `json:"turnIndex"`
	Message     json.RawMessage   `json:"message"`
	ToolResults []json.RawMessage `json:"toolResults,omitempty"`
}

// AgentEndEvent is the event of HookAgentEnd: the messages the run added,
// in the transcript's JSON form. The hook only observes.
type AgentEndEvent struct {
	Messages []json.RawMessage `json:"messages"`
}

// ToolEvent is the event of ExportTool: one call of a tool the extension
// declares. Input holds the arguments, validated against the declared
// schema.
type ToolEvent struct {
	ToolCallID string          `json:"toolCallId"`
	ToolName   string          `json:"toolName"`
	Input      json.RawMessage `json:"input"`
	Cwd        string          `json:"cwd,omitempty"`
}

// ToolResult is the result of ExportTool. A tool that fails in a way the
// model should read (a missing entry, a bad query) answers with IsError set
// rather than an envelope error; an envelope error becomes an error result
// too, naming the extension.
type ToolResult struct {
	Content []ContentPart `json:"content"`
	IsError bool          `json:"isError,omitempty"`
}

// Tool modes (ToolSpec.Mode).
const (
	ToolParallel   = "parallel"
	ToolSequential = "sequential"
)

// ToolSpec declares one extension tool in the manifest. Everything the
// prompt and the request need is here, so that a tool is declared without
// starting the guest.
type ToolSpec struct {
	// Name is what the model calls (^[a-z][a-z0-9_]*$).
	Name string `yaml:"name" json:"name"`
	// Description is sent to the model with the schema.
	Description string `yaml:"description" json:"description"`
	// Snippet is the tool's line in the prompt's <tools>; empty: not listed.
	Snippet string `yaml:"snippet,omitempty" json:"snippet,omitempty"`
	// Guidelines are added to <rules> while the tool is declared.
	Guidelines []string `yaml:"guidelines,omitempty" json:"guidelines,omitempty"`
	// Parameters is the JSON Schema of the arguments: an object written
	// inline, or a string naming a .json file next to the manifest. Absent:
	// the tool takes no arguments.
	Parameters any `yaml:"parameters,omitempty" json:"parameters,omitempty"`
	// Mode is "parallel" (default) or "sequential".
	Mode string `yaml:"mode,omitempty" json:"mode,omitempty"`
	// Hints describe the tool's reach for permissions.
	Hints ToolHints `yaml:"hints,omitempty" json:"hints,omitempty"`
}

// ToolHints are a tool's reach: whether it only reads, may destroy, or
// reaches outside the project.
type ToolHints struct {
	ReadOnly    bool `yaml:"readOnly,omitempty" json:"readOnly,omitempty"`
	Destructive bool `yaml:"destructive,omitempty" json:"destructive,omitempty"`
	OpenWorld   bool `yaml:"openWorld,omitempty" json:"openWorld,omitempty"`
}

// ParametersFile returns the schema file name when Parameters names one.
func (t ToolSpec) ParametersFile() (string, bool) {
	s, ok := t.Parameters.(string)
	return s, ok
}

// validateTools checks the tools list; add reports a field error.
func (m *Manifest) validateTools(add func(field, format string, args ...any)) {
	seen := map[string]bool{}
	for i, t := range m.Tools {
		f := func(name string) string { return fmt.Sprintf("tools[%d].%s", i, name) }
		switch {
		case t.Name == "":
			add(f("name"), "is required")
		case ValidToolName(t.Name) != nil:
			add(f("name"), "%q must match ^[a-z][a-z0-9_]*$ (at most 64 characters)", t.Name)
		case seen[t.Name]:
			add(f("name"), "tool %q listed twice", t.Name)
		}
		seen[t.Name] = true
		if strings.TrimSpace(t.Description) == "" {
			add(f("description"), "is required: the model reads it to decide when to call the tool")
		}
		for j, g := range t.Guidelines {
			if strings.TrimSpace(g) == "" {
				add(fmt.Sprintf("tools[%d].guidelines[%d]", i, j), "must not be empty")
			}
		}
		switch t.Mode {
		case "", ToolParallel, ToolSequential:
		default:
			add(f("mode"), "%q must be %q or %q", t.Mode, ToolParallel, ToolSequential)
		}
		switch p := t.Parameters.(type) {
		case nil:
		case string:
			if p == "" || strings.ContainsAny(p, `/\`) || !strings.HasSuffix(p, ".json") {
				add(f("parameters"), "%q must be an inline JSON Schema object or a .json file name in the package directory", p)
			}
		case map[string]any, map[any]any:
			if ty, ok := normalizeYAML(p).(map[string]any)["type"]; ok && ty != "object" {
				add(f("parameters"), "the schema's type must be \"object\" (tool arguments are an object), not %v", ty)
			}
		default:
			add(f("parameters"), "must be an inline JSON Schema object or a .json file name, not %T", p)
		}
	}
}

// ToolFor returns the declared tool named name.
func (m *Manifest) ToolFor(name string) (ToolSpec, bool) {
	for _, t := range m.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return ToolSpec{}, false
}
