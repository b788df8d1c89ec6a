package abi

import "encoding/json"

// Envelope is what every hook export writes: exactly one of Result or Error.
// A guest error (Error non-empty) is an ordinary failure of the hook: the
// instance stays in service. A missing or malformed envelope is a failure
// of the call and retires the instance.
type Envelope struct {
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

// SectionInfo describes one prompt section without its text (which is
// fetched with KeySectionPrefix+Name when needed).
type SectionInfo struct {
	Name   string  `json:"name"`
	Order  float64 `json:"order"`
	Source string  `json:"source,omitempty"`
	Bytes  int     `json:"bytes"`
}

// Options are the prompt options as the before_agent_start chain has left
// them so far. Large fields are given by name only: context file contents,
// the skills catalogue and section texts are fetched on demand.
type Options struct {
	CustomPrompt string        `json:"customPrompt,omitempty"`
	AppendText   string        `json:"appendText,omitempty"`
	Tools        []string      `json:"tools,omitempty"`
	Guidelines   []string      `json:"guidelines,omitempty"`
	Cwd          string        `json:"cwd,omitempty"`
	Sections     []SectionInfo `json:"sections,omitempty"`
	ContextFiles []string      `json:"contextFiles,omitempty"`
	Skills       []string      `json:"skills,omitempty"`
}

// BeforeAgentStartEvent is the event of HookBeforeAgentStart.
type BeforeAgentStartEvent struct {
	// Input is the user's prompt text for this run. pi's dispatcher leaves
	// it empty and serves it under KeyInput instead, so that a guest which
	// never looks at the input does not depend on it (its results can then
	// be memoised across different inputs); read it with the SDK's Input.
	Input string `json:"input"`
	// Options are the current prompt options (earlier extensions' edits
	// applied).
	Options Options `json:"options"`
	// SystemPrompt is the prompt as rendered so far when it is at most
	// InlinePromptMax bytes; otherwise it is empty and SystemPromptBytes
	// gives its size (fetch it with KeySystemPrompt).
	SystemPrompt      string `json:"systemPrompt,omitempty"`
	SystemPromptBytes int    `json:"systemPromptBytes,omitempty"`
}

// BeforeAgentStartResult is the result of HookBeforeAgentStart.
type BeforeAgentStartResult struct {
	// Ops edit the options and add sections/variables (see OpsFor).
	Ops []Op `json:"ops,omitempty"`
	// Message, when non-empty, is injected into the conversation as a
	// message before the user's input.
	Message string `json:"message,omitempty"`
	// ForcePrompt, when non-nil, replaces all system text of the outgoing
	// request for this run (the last extension to force wins). It is never
	// stored in the transcript.
	ForcePrompt *string `json:"forcePrompt,omitempty"`
}

// Section is one section of the assembly.
//
// On the wire to a guest, Text is inlined only when it is at most
// InlineTextMax bytes; a longer text is left empty, Bytes gives its length,
// and the guest fetches it with KeySectionPrefix+Name (the SDK's sdk.Text
// does this). Bytes is always set on the wire. The host accepts sections
// with Bytes zero and the full Text: it does the trimming itself.
type Section struct {
	Name        string  `json:"name"`
	Order       float64 `json:"order"`
	Text        string  `json:"text"`
	Bytes       int     `json:"bytes,omitempty"`
	Interpolate bool    `json:"interpolate,omitempty"`
	Complete    bool    `json:"complete,omitempty"`
	Source      string  `json:"source,omitempty"`
}

// InlineTextMax is the longest section text the host inlines into an
// AssembleEvent; longer ones are fetched on demand. Most hooks look at a
// few sections, and every byte a guest decodes costs far more inside the
// sandbox than on the host.
const InlineTextMax = 256

// TextInline reports whether s.Text holds the section's whole text (on the
// guest side, after the host's trimming).
func (s Section) TextInline() bool { return s.Bytes == 0 || s.Bytes == len(s.Text) }

// Context is one runtime-context entry of the assembly (rendered into a
// user-role snapshot, never into the system prompt).
type Context struct {
	Name  string  `json:"name"`
	Order float64 `json:"order"`
	Text  string  `json:"text"`
}

// Variable is a template variable; a nil Value means "registered without a
// value" (referencing it is an error).
type Variable struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

// AssembleEvent is the event of HookAssemble: the assembly as the previous
// extension in the waterfall left it.
type AssembleEvent struct {
	Sections  []Section  `json:"sections"`
	Contexts  []Context  `json:"contexts,omitempty"`
	Tools     []string   `json:"tools,omitempty"`
	Variables []Variable `json:"variables,omitempty"`
	// ContextsSuppressed reports that an earlier stage suppressed the
	// runtime context; it stays suppressed.
	ContextsSuppressed bool `json:"contextsSuppressed,omitempty"`
}

// AssembleResult is the result of HookAssemble. No ops means unchanged.
type AssembleResult struct {
	Ops []Op `json:"ops,omitempty"`
}

// Input actions.
const (
	ActionContinue  = "continue"
	ActionTransform = "transform"
	ActionHandled   = "handled"
)

// InputEvent is the event of HookInput.
type InputEvent struct {
	Text string `json:"text"`
}

// InputResult is the result of HookInput. An empty Action means continue.
// With ActionTransform, Text replaces the input for later stages; with
// ActionHandled the input is consumed and Text (if any) is shown.
type InputResult struct {
	Action string `json:"action,omitempty"`
	Text   string `json:"text,omitempty"`
}

// CommandInfo describes one slash command an extension offers.
type CommandInfo struct {
	Name         string `json:"name" yaml:"name"`
	Description  string `json:"description,omitempty" yaml:"description,omitempty"`
	ArgumentHint string `json:"argumentHint,omitempty" yaml:"argumentHint,omitempty"`
	// Completions says the module completes the argument (export
	// pi_command_complete), asked as the person types after "/name ".
	Completions bool `json:"completions,omitempty" yaml:"completions,omitempty"`
}

// CommandEvent is the event of ExportCommand: "/name args" typed by the user.
// Name is the command's own name (without any ":N" suffix the host added to
// disambiguate), Args the raw rest of the line.
type CommandEvent struct {
	Name string `json:"name"`
	Args string `json:"args,omitempty"`
	Cwd  string `json:"cwd,omitempty"`
}

// CommandResult is the result of ExportCommand. Send is text sent to the
// model as the user's message; Show is text shown to the user only. Both
// may be empty (the command did its work silently).
type CommandResult struct {
	Send string `json:"send,omitempty"`
	Show string `json:"show,omitempty"`
}

// Config is the manifest's free-form config, as JSON (fetched with
// KeyConfig).
type Config = json.RawMessage
