package sdk

import (
	"encoding/json"
	"errors"
	"path"
	"runtime"
	"slices"
	"strconv"
	"strings"

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
// without config leaves v unchanged: give v its defaults before the call,
// and prefer a struct value to a pointer, which would stay nil.
//
// The config never changes during an instance's life: decode it once (on
// the first call; it is not available during init) and keep the value, as
// the examples do, since decoding with encoding/json inside a guest costs
// tens of microseconds.
//
// Config links encoding/json (with reflect and fmt, about 0.9 MB of a
// guest's WebAssembly). ConfigString and ConfigNumber read one value each
// without it.
func Config(v any) error {
	raw, err := configJSON()
	if err != nil {
		return err
	}
	// No config arrives as null (or nothing); decoding null would set a
	// pointer v points at to nil rather than leave it alone.
	if t := strings.TrimSpace(string(raw)); t == "" || t == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return wrap("config", err)
	}
	return nil
}

var configRaw []byte

// configJSON returns the manifest's config as JSON, fetched once.
func configJSON() ([]byte, error) {
	if configRaw == nil {
		b, err := Fetch(abi.KeyConfig)
		if err != nil {
			return nil, wrap("config", err)
		}
		configRaw = b
	}
	return configRaw, nil
}

// configField returns the JSON text of the config's key, or nil when the
// config has no such key or it is null.
func configField(key string) ([]byte, error) {
	raw, err := configJSON()
	if err != nil {
		return nil, err
	}
	v, ok := abi.FieldValue(raw, key)
	if !ok || string(v) == "null" {
		return nil, nil
	}
	return v, nil
}

// ConfigString returns the string value of key in the manifest's config:
// ok is false when the config has no such key (or it is null), and the
// error says so when the value is not a string. Unlike Config it needs
// neither encoding/json nor reflection, so a guest that reads its config
// this way stays small (docs/extensions.md, "Guest size").
func ConfigString(key string) (value string, ok bool, err error) {
	v, err := configField(key)
	if v == nil || err != nil {
		return "", false, err
	}
	s, ok := abi.StringField(configRaw, key)
	if !ok || v[0] != '"' {
		return "", false, errors.New("config: " + key + " is not a string")
	}
	return s, true, nil
}

// ConfigNumber is ConfigString for a number.
func ConfigNumber(key string) (value float64, ok bool, err error) {
	v, err := configField(key)
	if v == nil || err != nil {
		return 0, false, err
	}
	f, ok := abi.NumberField(configRaw, key)
	if !ok {
		return 0, false, errors.New("config: " + key + " is not a number")
	}
	return f, true, nil
}

// SystemPrompt returns the prompt as rendered so far, fetching it from the
// host when the event did not inline it.
func SystemPrompt(ev *abi.BeforeAgentStartEvent) (string, error) {
	if ev.SystemPrompt != "" || ev.SystemPromptBytes == 0 {
		return ev.SystemPrompt, nil
	}
	return fetchString(abi.KeySystemPrompt)
}

// Input returns the user's input of a before_agent_start call: inline
// when the event carries it, else fetched (pi's dispatcher defers it so
// that guests which never read it stay independent of it).
func Input(ev *abi.BeforeAgentStartEvent) string {
	if ev.Input != "" {
		return ev.Input
	}
	s, err := fetchString(abi.KeyInput)
	if err != nil {
		return ""
	}
	return s
}

// Skills returns the rendered skills catalogue (before_agent_start).
func Skills() (string, error) { return fetchString(abi.KeySkills) }

// ContextFile returns the content of a context file listed in
// Options.ContextFiles.
func ContextFile(path string) (string, error) {
	s, err := fetchString(abi.KeyContextPrefix + path)
	if err != nil {
		return "", wrap("context file "+path, err)
	}
	return s, nil
}

// Text returns the whole text of a section of an AssembleEvent, fetching it
// from the host when it was too long to inline (see abi.InlineTextMax).
// Use it rather than s.Text unless the section is known to be short.
func Text(s abi.Section) (string, error) {
	if s.TextInline() {
		return s.Text, nil
	}
	return SectionText(s.Name)
}

// SectionText returns the text of a section by name: in before_agent_start
// one listed in Options.Sections, in system-prompt/assemble one of the
// event's sections.
func SectionText(name string) (string, error) {
	s, err := fetchString(abi.KeySectionPrefix + name)
	if err != nil {
		return "", wrap("section "+name, err)
	}
	return s, nil
}

// event is a payload the SDK decodes without reflection.
type event[T any] interface {
	*T
	DecodeJSON([]byte) error
}

// outBuf is the envelope buffer reused across calls.
var outBuf []byte

// run is the one wrapper behind every hook export: fetch and decode the
// event, call the handler, encode the envelope, hand it to the host, and
// yield so that the garbage collector can run. Only this shim is generic:
// Go stencils a generic function once per event struct (each has its own
// GC shape), and the whole envelope instantiated for each of the ~20
// exports was about 100 KiB of every guest's code.
func run[T any, E event[T]](handle func(ev E) (abi.JSONAppender, error)) int32 {
	ev := E(new(T))
	return runEvent(ev, func() (abi.JSONAppender, error) { return handle(ev) })
}

// decodable is an event as run hands it to runEvent.
type decodable interface{ DecodeJSON([]byte) error }

func runEvent(ev decodable, handle func() (abi.JSONAppender, error)) int32 {
	outBuf = envelope(outBuf[:0], ev, handle)
	output(outBuf)
	if cap(outBuf) > scratchKeep {
		outBuf = nil
	}
	releaseScratch()
	yield()
	return 0
}

func envelope(buf []byte, ev decodable, handle func() (abi.JSONAppender, error)) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			out = abi.AppendError(buf[:0], "panic: "+panicText(p)+panicSite())
		}
	}()
	raw, err := fetchInto(abi.KeyEvent)
	if err != nil {
		return abi.AppendError(buf, "reading event: "+err.Error())
	}
	if err := ev.DecodeJSON(raw); err != nil {
		return abi.AppendError(buf, "decoding event: "+err.Error())
	}
	res, err := handle()
	if err != nil {
		return abi.AppendError(buf, err.Error())
	}
	b, err := abi.AppendResult(buf, res)
	if err != nil {
		return abi.AppendError(buf[:0], "encoding result: "+err.Error())
	}
	return b
}

// panicSite names where the panic being recovered started, as " at
// file.go:line in function", or "" when the stack does not say. Called from
// the deferred function, the stack reads: this function, the deferred
// function, runtime.gopanic and runtime helpers (a nil map write, an index
// out of range), then the guest code that panicked.
func panicSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(1, pcs)])
	seenPanic := false
	for {
		f, more := frames.Next()
		if f.Function == "runtime.gopanic" {
			seenPanic = true
		} else if seenPanic && !strings.HasPrefix(f.Function, "runtime.") && f.File != "" {
			return " at " + path.Base(f.File) + ":" + strconv.Itoa(f.Line) + " in " + f.Function
		}
		if !more {
			return ""
		}
	}
}

// noEvent is the (ignored) event of pi_commands.
type noEvent struct{}

func (*noEvent) DecodeJSON([]byte) error { return nil }

// panicText is what fmt's %v prints for the usual panic values (an error,
// a string, a Stringer, a number); other values are named by their kind
// only, since printing them would take fmt and reflect.
func panicText(p any) string {
	switch v := p.(type) {
	case error:
		return v.Error()
	case string:
		return v
	case interface{ String() string }:
		return v.String()
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return "a value that is not an error, a string or a number"
}

func missing(hook string) error { return errors.New("no handler registered for " + hook) }

func handleBeforeAgentStart(ev *abi.BeforeAgentStartEvent) (abi.JSONAppender, error) {
	if beforeAgentStart == nil {
		return nil, missing(abi.HookBeforeAgentStart)
	}
	var r BeforeAgentStart
	if err := beforeAgentStart(ev, &r); err != nil {
		return nil, err
	}
	return r.result(), nil
}

func handleAssemble(ev *abi.AssembleEvent) (abi.JSONAppender, error) {
	if assemble == nil {
		return nil, missing(abi.HookAssemble)
	}
	var r Assemble
	if err := assemble(ev, &r); err != nil {
		return nil, err
	}
	return abi.AssembleResult{Ops: r.ops}, nil
}

func handleInput(ev *abi.InputEvent) (abi.JSONAppender, error) {
	if input == nil {
		return nil, missing(abi.HookInput)
	}
	res, err := input(ev)
	return res, err
}

func handleCommand(ev *abi.CommandEvent) (abi.JSONAppender, error) {
	c, ok := commands[ev.Name]
	if !ok {
		return nil, errors.New("unknown command " + strconv.Quote(ev.Name))
	}
	res, err := c.handler(ev)
	return res, err
}

func handleCommands(*noEvent) (abi.JSONAppender, error) {
	list := make(abi.CommandList, 0, len(commands))
	for _, c := range commands {
		list = append(list, c.info)
	}
	slices.SortFunc(list, func(a, b abi.CommandInfo) int { return strings.Compare(a.Name, b.Name) })
	return list, nil
}
