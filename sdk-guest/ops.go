package sdk

import "github.com/piwasm/pi/abi"

// Ops records edit operations. It is embedded in BeforeAgentStart and
// Assemble; the host validates the ops against the hook (abi.OpsFor) and
// rejects the whole result if one is invalid.
type Ops struct{ ops []abi.Op }

// SectionOption adjusts a set_section or set_context op.
type SectionOption func(*abi.Op)

// Order places the section (or context) at order. The built-in sections
// sit at preamble 0, tools 100, rules 200, docs 300, addendum 400,
// project_context 500, skills 600 and cwd 700 (docs/extensions.md, "Edit
// operations"). Without it a new section lands after the built-ins.
func Order(order float64) SectionOption { return func(o *abi.Op) { o.Order = &order } }

// Interpolate marks the section for {{variable}} interpolation.
func Interpolate() SectionOption { return func(o *abi.Op) { o.Interpolate = true } }

// Complete marks the section as the whole prompt.
func Complete() SectionOption { return func(o *abi.Op) { o.Complete = true } }

// Op records a raw operation.
func (r *Ops) Op(op abi.Op) { r.ops = append(r.ops, op) }

// List returns the operations recorded so far.
func (r *Ops) List() []abi.Op { return r.ops }

// SetSection adds or replaces the section name.
func (r *Ops) SetSection(name, text string, opts ...SectionOption) {
	op := abi.Op{Op: abi.OpSetSection, Name: name, Text: text}
	for _, o := range opts {
		o(&op)
	}
	r.Op(op)
}

// RemoveSection removes the section name.
func (r *Ops) RemoveSection(name string) { r.Op(abi.Op{Op: abi.OpRemoveSection, Name: name}) }

// SetVariable gives variable name the value.
func (r *Ops) SetVariable(name, value string) {
	r.Op(abi.Op{Op: abi.OpSetVariable, Name: name, Value: &value})
}

// DeclareVariable registers variable name without a value.
func (r *Ops) DeclareVariable(name string) { r.Op(abi.Op{Op: abi.OpSetVariable, Name: name}) }

// SetTools replaces the selected tools.
func (r *Ops) SetTools(tools ...string) {
	r.Op(abi.Op{Op: abi.OpSetTools, Tools: append([]string{}, tools...)})
}

// BeforeAgentStart collects the result of a before_agent_start handler.
type BeforeAgentStart struct {
	Ops
	message string
	force   *string
}

// SetCustomPrompt replaces the custom prompt ("" clears it).
func (r *BeforeAgentStart) SetCustomPrompt(text string) {
	r.Op(abi.Op{Op: abi.OpSetCustomPrompt, Text: text})
}

// SetAppend replaces the append text.
func (r *BeforeAgentStart) SetAppend(text string) { r.Op(abi.Op{Op: abi.OpSetAppend, Text: text}) }

// AddGuideline adds a bullet to the extra guidelines.
func (r *BeforeAgentStart) AddGuideline(text string) {
	r.Op(abi.Op{Op: abi.OpAddGuideline, Text: text})
}

// ForcePrompt replaces all system text of this run's requests with text.
// It is never written to the transcript.
func (r *BeforeAgentStart) ForcePrompt(text string) { r.force = &text }

// InjectMessage adds a message to the conversation before the user's
// input.
func (r *BeforeAgentStart) InjectMessage(text string) { r.message = text }

func (r *BeforeAgentStart) result() abi.BeforeAgentStartResult {
	return abi.BeforeAgentStartResult{Ops: r.ops, Message: r.message, ForcePrompt: r.force}
}

// Assemble collects the result of a system-prompt/assemble handler.
type Assemble struct{ Ops }

// SetContext adds or replaces runtime context name.
func (r *Assemble) SetContext(name, text string, opts ...SectionOption) {
	op := abi.Op{Op: abi.OpSetContext, Name: name, Text: text}
	for _, o := range opts {
		o(&op)
		op.Interpolate, op.Complete = false, false
	}
	r.Op(op)
}

// RemoveContext removes runtime context name.
func (r *Assemble) RemoveContext(name string) { r.Op(abi.Op{Op: abi.OpRemoveContext, Name: name}) }

// SuppressContexts empties the runtime context for this run.
func (r *Assemble) SuppressContexts() { r.Op(abi.Op{Op: abi.OpSuppressContexts}) }
