//go:build wasip1

package sdk

import (
	"encoding/json"
	"fmt"
	"runtime"
	"sort"

	"github.com/piwasm/pi/abi"
)

var (
	beforeAgentStart func(*abi.BeforeAgentStartEvent, *BeforeAgentStart) error
	assemble         func(*abi.AssembleEvent, *Assemble) error
	input            func(*abi.InputEvent) (abi.InputResult, error)
	commands         = map[string]command{}
)

type command struct {
	info    abi.CommandInfo
	handler func(*abi.CommandEvent) (abi.CommandResult, error)
}

// OnBeforeAgentStart registers the before_agent_start handler (replacing
// any earlier one). The handler edits the run through r.
func OnBeforeAgentStart(h func(ev *abi.BeforeAgentStartEvent, r *BeforeAgentStart) error) {
	beforeAgentStart = h
}

// OnAssemble registers the system-prompt/assemble handler. The handler
// edits the assembly through r; recording nothing leaves it unchanged.
func OnAssemble(h func(ev *abi.AssembleEvent, r *Assemble) error) { assemble = h }

// OnInput registers the input handler. Return abi.InputResult{} (or
// Continue()) to pass the input on unchanged.
func OnInput(h func(ev *abi.InputEvent) (abi.InputResult, error)) { input = h }

// Command registers the handler of the slash command /name. The manifest
// should list the command too (it is what the host reads at load); the
// pi_commands export reports the registered ones for hosts that ask.
func Command(name string, h func(ev *abi.CommandEvent) (abi.CommandResult, error)) {
	CommandWith(abi.CommandInfo{Name: name}, h)
}

// CommandWith is Command with a description and an argument hint.
func CommandWith(info abi.CommandInfo, h func(ev *abi.CommandEvent) (abi.CommandResult, error)) {
	commands[info.Name] = command{info: info, handler: h}
}

// Continue returns the input result that passes the input on unchanged.
func Continue() abi.InputResult { return abi.InputResult{Action: abi.ActionContinue} }

// Transform returns the input result that replaces the input with text.
func Transform(text string) abi.InputResult {
	return abi.InputResult{Action: abi.ActionTransform, Text: text}
}

// Handled returns the input result that consumes the input; show, if not
// empty, is shown to the user.
func Handled(show string) abi.InputResult {
	return abi.InputResult{Action: abi.ActionHandled, Text: show}
}

// Config decodes the manifest's config into v (a pointer). A manifest
// without config leaves v unchanged.
func Config(v any) error {
	b, err := fetchInto(abi.KeyConfig)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// SystemPrompt returns the prompt as rendered so far, fetching it from the
// host when the event did not inline it.
func SystemPrompt(ev *abi.BeforeAgentStartEvent) (string, error) {
	if ev.SystemPrompt != "" || ev.SystemPromptBytes == 0 {
		return ev.SystemPrompt, nil
	}
	b, err := fetchInto(abi.KeySystemPrompt)
	if err != nil {
		return "", err
	}
	s := string(b)
	releaseScratch()
	return s, nil
}

// ContextFile returns the content of a context file listed in
// Options.ContextFiles.
func ContextFile(path string) (string, error) {
	b, err := fetchInto(abi.KeyContextPrefix + path)
	if err != nil {
		return "", fmt.Errorf("context file %s: %w", path, err)
	}
	s := string(b)
	releaseScratch()
	return s, nil
}

// SectionText returns the text of a section listed in Options.Sections.
func SectionText(name string) (string, error) {
	b, err := fetchInto(abi.KeySectionPrefix + name)
	if err != nil {
		return "", fmt.Errorf("section %s: %w", name, err)
	}
	s := string(b)
	releaseScratch()
	return s, nil
}

// run is the one wrapper behind every hook export: fetch and decode the
// event, call the handler, encode the envelope, hand it to the host, and
// yield so that the garbage collector can run.
func run[E any](handle func(ev *E) (any, error)) int32 {
	out := envelope(handle)
	output(out)
	releaseScratch()
	// A standard-Go guest only runs its garbage collector when the
	// scheduler gets a chance; without this yield the heap grows from call
	// to call until the memory cap.
	runtime.Gosched()
	return 0
}

func envelope[E any](handle func(ev *E) (any, error)) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			out = abi.EncodeError(fmt.Sprintf("panic: %v", p))
		}
	}()
	raw, err := fetchInto(abi.KeyEvent)
	if err != nil {
		return abi.EncodeError("reading event: " + err.Error())
	}
	var ev E
	if err := json.Unmarshal(raw, &ev); err != nil {
		return abi.EncodeError("decoding event: " + err.Error())
	}
	res, err := handle(&ev)
	if err != nil {
		return abi.EncodeError(err.Error())
	}
	b, err := abi.EncodeResult(res)
	if err != nil {
		return abi.EncodeError("encoding result: " + err.Error())
	}
	return b
}

func missing(hook string) error { return fmt.Errorf("no handler registered for %s", hook) }

//go:wasmexport pi_abi_version
func exportABIVersion() int32 { return abi.Version }

//go:wasmexport pi_before_agent_start
func exportBeforeAgentStart() int32 {
	return run(func(ev *abi.BeforeAgentStartEvent) (any, error) {
		if beforeAgentStart == nil {
			return nil, missing(abi.HookBeforeAgentStart)
		}
		var r BeforeAgentStart
		if err := beforeAgentStart(ev, &r); err != nil {
			return nil, err
		}
		return r.result(), nil
	})
}

//go:wasmexport pi_assemble
func exportAssemble() int32 {
	return run(func(ev *abi.AssembleEvent) (any, error) {
		if assemble == nil {
			return nil, missing(abi.HookAssemble)
		}
		var r Assemble
		if err := assemble(ev, &r); err != nil {
			return nil, err
		}
		return abi.AssembleResult{Ops: r.ops}, nil
	})
}

//go:wasmexport pi_input
func exportInput() int32 {
	return run(func(ev *abi.InputEvent) (any, error) {
		if input == nil {
			return nil, missing(abi.HookInput)
		}
		return input(ev)
	})
}

//go:wasmexport pi_command
func exportCommand() int32 {
	return run(func(ev *abi.CommandEvent) (any, error) {
		c, ok := commands[ev.Name]
		if !ok {
			return nil, fmt.Errorf("unknown command %q", ev.Name)
		}
		return c.handler(ev)
	})
}

//go:wasmexport pi_commands
func exportCommands() int32 {
	return run(func(*struct{}) (any, error) {
		list := make([]abi.CommandInfo, 0, len(commands))
		for _, c := range commands {
			list = append(list, c.info)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
		return list, nil
	})
}
