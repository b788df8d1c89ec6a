package abi

// Version is the ABI version this package describes. A guest reports the
// version it was built against from its pi_abi_version export and in the
// manifest's abi field; the host refuses any other value.
const Version = 1

// Export names a guest module provides. Every hook export has the Extism
// signature () -> i32: it reads its event with pi_fetch(KeyEvent), writes an
// Envelope with pi_output (or Extism's output), and returns 0. A non-zero
// return, a trap or a missing envelope is a failure of the call itself.
const (
	// ExportABIVersion is a plain export () -> i32 returning the ABI
	// version. It does no Extism I/O.
	ExportABIVersion = "pi_abi_version"
	// ExportBeforeAgentStart handles HookBeforeAgentStart.
	ExportBeforeAgentStart = "pi_before_agent_start"
	// ExportAssemble handles HookAssemble.
	ExportAssemble = "pi_assemble"
	// ExportInput handles HookInput.
	ExportInput = "pi_input"
	// ExportCommand runs a slash command (event CommandEvent).
	ExportCommand = "pi_command"
	// ExportCommands lists the commands the guest offers ([]CommandInfo).
	// It is used only when the manifest lists none; the manifest is
	// authoritative at load time.
	ExportCommands = "pi_commands"
)

// Hook names, as written in a manifest's hooks list.
const (
	HookBeforeAgentStart = "before_agent_start"
	HookAssemble         = "system-prompt/assemble"
	HookInput            = "input"
	HookCommand          = "command"
)

// Hooks lists every hook name in dispatch order of the pipeline.
var Hooks = []string{HookBeforeAgentStart, HookInput, HookCommand, HookAssemble, HookToolCall, HookToolResult, HookTurnEnd, HookAgentEnd, HookSessionBeforeCompact, HookContext, HookBeforeProviderRequest, HookSessionStart, HookSessionShutdown, HookSessionBeforeSwitch, HookSessionBeforeFork}

// ExportFor returns the export name that implements hook, or "" for an
// unknown hook.
func ExportFor(hook string) string {
	switch hook {
	case HookBeforeAgentStart:
		return ExportBeforeAgentStart
	case HookAssemble:
		return ExportAssemble
	case HookInput:
		return ExportInput
	case HookCommand:
		return ExportCommand
	case HookToolCall:
		return ExportToolCall
	case HookToolResult:
		return ExportToolResult
	case HookTurnEnd:
		return ExportTurnEnd
	case HookAgentEnd:
		return ExportAgentEnd
	case HookSessionBeforeCompact:
		return ExportSessionBeforeCompact
	case HookContext:
		return ExportContext
	case HookBeforeProviderRequest:
		return ExportBeforeProviderRequest
	case HookSessionStart:
		return ExportSessionStart
	case HookSessionShutdown:
		return ExportSessionShutdown
	case HookSessionBeforeSwitch:
		return ExportSessionBeforeSwitch
	case HookSessionBeforeFork:
		return ExportSessionBeforeFork
	}
	return ""
}

// HostModule is the import module of every pi host function. It is the
// namespace Extism uses for user host functions.
const HostModule = "extism:host/user"

// Host function names (imported from HostModule).
//
//	pi_fetch(keyPtr, keyLen, dstPtr, dstCap i32) i64
//	pi_output(ptr, len i32)
//	pi_log(level, ptr, len i32)
//	pi_read_file(pathPtr, pathLen, dstPtr, dstCap i32) i64
//
// pi_fetch and pi_read_file copy the value into guest memory at dstPtr in one
// write when it fits in dstCap bytes and return its length. When it does not
// fit they copy nothing and return the length needed, so the guest can grow
// its buffer and call again. A negative result is one of the Err* codes.
const (
	HostFetch    = "pi_fetch"
	HostOutput   = "pi_output"
	HostLog      = "pi_log"
	HostReadFile = "pi_read_file"
)

// The same services in Extism's own conventions, for guests built with a
// stock Extism PDK (which reads its event as the Extism input, answers
// with Extism's output and logs with Extism's log functions). Arguments
// and results are offsets of Extism memory blocks:
//
//	pi_fetch_block(key i64) i64
//	pi_read_file_block(path i64) i64
//
// A non-negative result is the offset of a new block holding the value
// (read its length with Extism's length); a negative result is one of the
// Err* codes.
const (
	HostFetchBlock    = "pi_fetch_block"
	HostReadFileBlock = "pi_read_file_block"
)

// Negative results of pi_fetch and pi_read_file.
const (
	// ErrNotFound: pi_fetch was given an unknown key, or pi_read_file a
	// path that does not exist (or is not a regular file).
	ErrNotFound = -1
	// ErrDenied: the path is outside every granted glob, outside the
	// project root (after cleaning and resolving symlinks), or the
	// extension has no file grant.
	ErrDenied = -2
	// ErrInvalid: the key or path could not be read from guest memory, is
	// empty, absolute, or not valid UTF-8.
	ErrInvalid = -3
	// ErrIO: the file exists and is allowed but could not be read, or is
	// larger than the extension's output limit.
	ErrIO = -4
)

// ErrorCodeText describes a negative pi_fetch / pi_read_file result.
func ErrorCodeText(code int64) string {
	switch code {
	case ErrNotFound:
		return "not found"
	case ErrDenied:
		return "permission denied"
	case ErrInvalid:
		return "invalid argument"
	case ErrIO:
		return "i/o error"
	}
	return "unknown error"
}

// Log levels of pi_log.
const (
	LogDebug = 0
	LogInfo  = 1
	LogWarn  = 2
	LogError = 3
)

// LogLevelName returns "debug", "info", "warn" or "error" (anything else
// maps to "info").
func LogLevelName(level int32) string {
	switch level {
	case LogDebug:
		return "debug"
	case LogWarn:
		return "warn"
	case LogError:
		return "error"
	}
	return "info"
}

// Keys understood by pi_fetch. Which keys are available depends on the hook;
// an unavailable key returns ErrNotFound.
const (
	// KeyEvent is the JSON event of the current call (every hook).
	KeyEvent = "event"
	// KeyInput is the user's input of a before_agent_start call when the
	// event does not carry it inline.
	KeyInput = "input"
	// KeyConfig is the manifest's config as JSON ("null" when absent).
	KeyConfig = "config"
	// KeyFlags is the values of the manifest's flags as a JSON object
	// (a boolean flag as a bool, a string flag as a string; a string
	// flag neither given nor defaulted is absent).
	KeyFlags = "flags"
	// KeySkills is the rendered skills catalogue (before_agent_start).
	KeySkills = "skills"
	// KeySystemPrompt is the prompt as rendered so far
	// (before_agent_start), for when it was too large to inline.
	KeySystemPrompt = "system_prompt"
	// KeyContextPrefix + path is a context file's content
	// (before_agent_start), path as listed in Options.ContextFiles.
	KeyContextPrefix = "context:"
	// KeySectionPrefix + name is a section's text (before_agent_start),
	// name as listed in Options.Sections.
	KeySectionPrefix = "section:"
)

// InlinePromptMax is the largest rendered prompt the host inlines into
// BeforeAgentStartEvent.SystemPrompt; a larger one is left empty and
// fetched with KeySystemPrompt.
const InlinePromptMax = 4096
