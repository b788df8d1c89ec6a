package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/tool"
)

// ToolSpecs returns the tools the extension declares with their parameter
// schemas as exact JSON bytes, in manifest order. Nothing runs: the
// manifest says all the prompt and the request need.
func (e *Extension) ToolSpecs() []ToolSpec { return e.pkg.ToolSpecs() }

// ToolSpec is a declared tool with its resolved schema.
type ToolSpec struct {
	abi.ToolSpec
	Schema json.RawMessage
}

// ToolSpecs returns the package's declared tools with their schemas.
func (p *Package) ToolSpecs() []ToolSpec {
	out := make([]ToolSpec, len(p.Manifest.Tools))
	for i, t := range p.Manifest.Tools {
		out[i] = ToolSpec{ToolSpec: t, Schema: noParameters}
		if i < len(p.toolSchemas) && p.toolSchemas[i] != nil {
			out[i].Schema = p.toolSchemas[i]
		}
	}
	return out
}

// Tools returns the extension's tools as pi runs them: declared from the
// manifest, run in the guest (instantiated on first use) under the
// extension's grants and limits. cwd is passed to the guest in the event.
func (e *Extension) Tools(cwd string) []tool.Tool {
	specs := e.ToolSpecs()
	out := make([]tool.Tool, len(specs))
	for i, s := range specs {
		t := tool.Tool{
			Name: s.Name, Description: s.Description, Parameters: s.Schema,
			Snippet: s.Snippet, Guidelines: s.Guidelines,
			Hints:  tool.Hints{ReadOnly: s.Hints.ReadOnly, Destructive: s.Hints.Destructive, OpenWorld: s.Hints.OpenWorld},
			Source: "extension:" + e.Name(),
		}
		if s.Mode == abi.ToolSequential {
			t.Mode = tool.Sequential
		}
		name := s.Name
		t.Run = func(ctx context.Context, call tool.Call, update tool.Update) (tool.Result, error) {
			return e.runTool(ctx, name, cwd, call, update), nil
		}
		out[i] = t
	}
	return out
}

// runTool runs one call and turns every failure into an error result the
// model can read, naming the extension and, for a limit, the limit.
func (e *Extension) runTool(ctx context.Context, name, cwd string, call tool.Call, update tool.Update) tool.Result {
	args, err := json.Marshal(call.Args)
	if err != nil {
		return tool.ErrorResult("%s: the arguments could not be encoded: %v", name, err)
	}
	var push func(string)
	if update != nil {
		push = func(text string) { update(tool.TextResult(text)) }
	}
	res, err := e.RunTool(ctx, abi.ToolEvent{ToolCallID: call.ID, ToolName: name, Input: args, Cwd: cwd}, push)
	if err != nil {
		return tool.ErrorResult("%s", e.toolFailure(name, err))
	}
	r := tool.Result{IsError: res.IsError, Content: make([]tool.Part, len(res.Content))}
	for i, p := range res.Content {
		r.Content[i] = tool.Part{Type: p.Type, Text: p.Text, Data: p.Data, MimeType: p.MimeType}
	}
	return r
}

// toolFailure words a failed tool call for the model and the user.
func (e *Extension) toolFailure(name string, err error) string {
	var ce *CallError
	if !errors.As(err, &ce) {
		return fmt.Sprintf("Tool %s of extension %s failed: %v", name, e.Name(), err)
	}
	detail := ""
	if ce.Err != nil {
		detail = ce.Err.Error()
	}
	l := e.limits
	switch ce.Cause {
	case CauseTimeout:
		return fmt.Sprintf("Tool %s of extension %s ran past its time limit of %d ms and was stopped; the extension was restarted.", name, e.Name(), l.TimeoutMs)
	case CauseMemory:
		return fmt.Sprintf("Tool %s of extension %s reached its memory limit of %d MiB (%s); the extension was restarted.", name, e.Name(), l.MemoryMiB, detail)
	case CauseOutputTooLarge:
		return fmt.Sprintf("Tool %s of extension %s produced more output than its limit of %d KiB (%s); the extension was restarted.", name, e.Name(), l.OutputKiB, detail)
	case CauseGuestError:
		return fmt.Sprintf("Tool %s of extension %s reported an error: %s", name, e.Name(), detail)
	case CauseCanceled:
		return "aborted"
	}
	if ce.Cause.Retires() {
		return fmt.Sprintf("Tool %s of extension %s failed (%s: %s); the extension was restarted.", name, e.Name(), ce.Cause, detail)
	}
	return fmt.Sprintf("Tool %s of extension %s failed (%s: %s).", name, e.Name(), ce.Cause, detail)
}

// RunTool calls the pi_tool export for one call of a declared tool. update,
// when not nil, receives the partial output the guest streams with
// pi_tool_update. Errors are *CallError with Hook "tool <name>"; a result
// whose content breaks the contract is CauseInvalidResult.
func (e *Extension) RunTool(ctx context.Context, ev abi.ToolEvent, update func(string)) (abi.ToolResult, error) {
	hook := "tool " + ev.ToolName
	if _, ok := e.pkg.Manifest.ToolFor(ev.ToolName); !ok {
		return abi.ToolResult{}, e.callErr(hook, CauseUnavailable, fmt.Errorf("the manifest declares no tool %q", ev.ToolName))
	}
	in, err := plainJSON(ev)
	if err != nil {
		return abi.ToolResult{}, e.callErr(hook, CauseUnavailable, err)
	}
	if update != nil {
		ctx = context.WithValue(ctx, updateKey{}, update)
	}
	out, inst, err := e.invoke(ctx, hook, abi.ExportTool, in, nil)
	if err != nil {
		return abi.ToolResult{}, err
	}
	var res abi.ToolResult
	if err := abi.DecodeEnvelope(out, &res); err != nil {
		var ge *abi.GuestError
		if errors.As(err, &ge) {
			return abi.ToolResult{}, e.callErr(hook, CauseGuestError, err)
		}
		e.retireIf(inst)
		return abi.ToolResult{}, e.callErr(hook, CauseBadEnvelope, err)
	}
	if err := checkToolContent(res.Content); err != nil {
		return abi.ToolResult{}, e.callErr(hook, CauseInvalidResult, err)
	}
	return res, nil
}

// checkToolContent accepts text parts and image parts with data and a
// type; a tool result needs at least one part.
func checkToolContent(parts []abi.ContentPart) error {
	if len(parts) == 0 {
		return errors.New("the result has no content")
	}
	for i, p := range parts {
		switch {
		case p.Type == "text" && p.Data == "" && p.MimeType == "":
		case p.Type == "image" && p.Data != "" && p.MimeType != "" && p.Text == "":
		default:
			return fmt.Errorf("content[%d]: want a text part or an image part with data and mimeType, got type %q", i, p.Type)
		}
	}
	return nil
}

// updateKey carries a tool call's update function to invoke.
type updateKey struct{}

// updateFrom returns the tool update function ctx carries, or nil.
func updateFrom(ctx context.Context) func(string) {
	f, _ := ctx.Value(updateKey{}).(func(string))
	return f
}

// toolUpdate hands partial output of the call in progress to its caller,
// at most abi.MaxToolUpdates times per call.
func (e *Extension) toolUpdate(text []byte, ok bool) {
	cs := e.call
	if cs == nil || cs.update == nil || !ok {
		return
	}
	cs.updates++
	if cs.updates > abi.MaxToolUpdates {
		return
	}
	cs.update(string(text))
}
