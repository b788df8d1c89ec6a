package abi

import (
	"fmt"
	"math"
)

// Op kinds. Which kinds a hook accepts is given by OpsFor.
const (
	// OpSetSection adds or replaces the section Name with Text (and
	// Interpolate, Complete). Order places a new section; when nil, a new
	// section gets the host's default (1000 + insertion order) and an
	// existing one keeps its position.
	OpSetSection = "set_section"
	// OpRemoveSection removes the section Name (no-op when absent).
	OpRemoveSection = "remove_section"
	// OpSetVariable sets variable Name to *Value; a nil Value registers it
	// without a value.
	OpSetVariable = "set_variable"
	// OpSetCustomPrompt replaces the custom prompt with Text ("" clears it).
	OpSetCustomPrompt = "set_custom_prompt"
	// OpSetAppend replaces the append text with Text.
	OpSetAppend = "set_append"
	// OpAddGuideline appends Text to the extra guidelines.
	OpAddGuideline = "add_guideline"
	// OpSetTools replaces the selected tools with Tools.
	OpSetTools = "set_tools"
	// OpSetContext adds or replaces runtime context Name with Text (Order
	// as for sections; default 1000 + insertion order).
	OpSetContext = "set_context"
	// OpRemoveContext removes runtime context Name.
	OpRemoveContext = "remove_context"
	// OpSuppressContexts empties the runtime context for this run.
	OpSuppressContexts = "suppress_contexts"
)

// Op is one edit operation returned by a hook. Only the fields its kind
// uses may be set; the host validates every op before applying any of a
// result's ops (a result with one invalid op is rejected whole).
type Op struct {
	Op          string   `json:"op"`
	Name        string   `json:"name,omitempty"`
	Text        string   `json:"text,omitempty"`
	Order       *float64 `json:"order,omitempty"`
	Interpolate bool     `json:"interpolate,omitempty"`
	Complete    bool     `json:"complete,omitempty"`
	Value       *string  `json:"value,omitempty"`
	Tools       []string `json:"tools,omitempty"`
}

// OpsFor returns the op kinds hook accepts:
//
//	before_agent_start:     set_section remove_section set_variable
//	                        set_custom_prompt set_append add_guideline set_tools
//	system-prompt/assemble: set_section remove_section set_variable set_tools
//	                        set_context remove_context suppress_contexts
//
// input and command accept no ops.
func OpsFor(hook string) []string {
	switch hook {
	case HookBeforeAgentStart:
		return []string{OpSetSection, OpRemoveSection, OpSetVariable, OpSetCustomPrompt, OpSetAppend, OpAddGuideline, OpSetTools}
	case HookAssemble:
		return []string{OpSetSection, OpRemoveSection, OpSetVariable, OpSetTools, OpSetContext, OpRemoveContext, OpSuppressContexts}
	}
	return nil
}

// Validate checks op for hook: the kind is accepted by the hook, the fields
// it needs are present and well formed, and no field it ignores is set.
// In before_agent_start a section may not be named "preamble".
func (op Op) Validate(hook string) error {
	ok := false
	for _, k := range OpsFor(hook) {
		if k == op.Op {
			ok = true
		}
	}
	if !ok {
		return fmt.Errorf("op %q is not accepted by hook %s", op.Op, hook)
	}
	if op.Order != nil && (math.IsNaN(*op.Order) || math.IsInf(*op.Order, 0)) {
		return fmt.Errorf("op %s %q: order must be finite", op.Op, op.Name)
	}
	type fields struct{ name, text, order, flags, value, tools bool }
	var allowed fields
	switch op.Op {
	case OpSetSection:
		allowed = fields{name: true, text: true, order: true, flags: true}
	case OpRemoveSection, OpRemoveContext:
		allowed = fields{name: true}
	case OpSetVariable:
		allowed = fields{name: true, value: true}
	case OpSetCustomPrompt, OpSetAppend, OpAddGuideline:
		allowed = fields{text: true}
	case OpSetTools:
		allowed = fields{tools: true}
	case OpSetContext:
		allowed = fields{name: true, text: true, order: true}
	case OpSuppressContexts:
	}
	switch {
	case !allowed.name && op.Name != "":
		return fmt.Errorf("op %s: name is not used", op.Op)
	case !allowed.text && op.Text != "":
		return fmt.Errorf("op %s: text is not used", op.Op)
	case !allowed.order && op.Order != nil:
		return fmt.Errorf("op %s: order is not used", op.Op)
	case !allowed.flags && (op.Interpolate || op.Complete):
		return fmt.Errorf("op %s: interpolate/complete are not used", op.Op)
	case !allowed.value && op.Value != nil:
		return fmt.Errorf("op %s: value is not used", op.Op)
	case !allowed.tools && op.Tools != nil:
		return fmt.Errorf("op %s: tools is not used", op.Op)
	}
	if allowed.name {
		if op.Op == OpSetVariable {
			if err := ValidVariableName(op.Name); err != nil {
				return fmt.Errorf("op %s: %w", op.Op, err)
			}
		} else if err := ValidContextName(op.Name); err != nil {
			return fmt.Errorf("op %s: %w", op.Op, err)
		}
	}
	if hook == HookBeforeAgentStart && op.Name == "preamble" && (op.Op == OpSetSection || op.Op == OpRemoveSection) {
		return fmt.Errorf("op %s: section name \"preamble\" is reserved (use set_custom_prompt)", op.Op)
	}
	if op.Op == OpAddGuideline && op.Text == "" {
		return fmt.Errorf("op %s: text is empty", op.Op)
	}
	return nil
}

// MaxOps caps the ops of one hook result. Applying ops is linear in their
// number, but a result is applied on every run (memoised or not), and no
// prompt needs thousands of edits.
const MaxOps = 1000

// ValidateOps validates every op for hook and returns the first error,
// prefixed with the op's index. A result with more than MaxOps ops is
// invalid.
func ValidateOps(hook string, ops []Op) error {
	if len(ops) > MaxOps {
		return fmt.Errorf("ops: %d ops, over the limit of %d per result", len(ops), MaxOps)
	}
	for i, op := range ops {
		if err := op.Validate(hook); err != nil {
			return fmt.Errorf("ops[%d]: %w", i, err)
		}
	}
	return nil
}

// ApplyAssemble validates ops for HookAssemble and applies them to a copy
// of ev, which it returns; ev itself is not modified. On error nothing is
// applied. New sections without an order get 1000 + their position among
// all sections; an existing section keeps its order unless the op gives
// one. A section marked complete is left for the host's own rules (it is
// restored after the waterfall).
func ApplyAssemble(ev AssembleEvent, ops []Op) (AssembleEvent, error) {
	if err := ValidateOps(HookAssemble, ops); err != nil {
		return ev, err
	}
	out := AssembleEvent{
		Tools:              ev.Tools,
		ContextsSuppressed: ev.ContextsSuppressed,
	}
	// Names are looked up in maps; removals leave holes (nil) that are
	// squeezed out at the end, so that every op costs O(1).
	sections := make([]*Section, 0, len(ev.Sections))
	secIdx := make(map[string]int, len(ev.Sections))
	liveSections := 0
	for i := range ev.Sections {
		s := ev.Sections[i]
		if _, dup := secIdx[s.Name]; !dup {
			secIdx[s.Name] = len(sections)
		}
		sections = append(sections, &s)
		liveSections++
	}
	contexts := make([]*Context, 0, len(ev.Contexts))
	ctxIdx := make(map[string]int, len(ev.Contexts))
	liveContexts := 0
	for i := range ev.Contexts {
		c := ev.Contexts[i]
		if _, dup := ctxIdx[c.Name]; !dup {
			ctxIdx[c.Name] = len(contexts)
		}
		contexts = append(contexts, &c)
		liveContexts++
	}
	out.Variables = append([]Variable(nil), ev.Variables...)
	varIdx := make(map[string]int, len(ev.Variables))
	for i, v := range out.Variables {
		if _, dup := varIdx[v.Name]; !dup {
			varIdx[v.Name] = i
		}
	}
	for _, op := range ops {
		switch op.Op {
		case OpSetSection:
			s := Section{Name: op.Name, Text: op.Text, Interpolate: op.Interpolate, Complete: op.Complete}
			if i, ok := secIdx[op.Name]; ok {
				s.Order, s.Source = sections[i].Order, sections[i].Source
				if op.Order != nil {
					s.Order = *op.Order
				}
				sections[i] = &s
			} else {
				s.Order = float64(1000 + liveSections)
				if op.Order != nil {
					s.Order = *op.Order
				}
				secIdx[op.Name] = len(sections)
				sections = append(sections, &s)
				liveSections++
			}
		case OpRemoveSection:
			if i, ok := secIdx[op.Name]; ok {
				sections[i] = nil
				delete(secIdx, op.Name)
				liveSections--
			}
		case OpSetVariable:
			v := Variable{Name: op.Name, Value: op.Value}
			if i, ok := varIdx[op.Name]; ok {
				out.Variables[i] = v
			} else {
				varIdx[op.Name] = len(out.Variables)
				out.Variables = append(out.Variables, v)
			}
		case OpSetTools:
			out.Tools = append([]string{}, op.Tools...)
		case OpSetContext:
			if out.ContextsSuppressed {
				continue
			}
			c := Context{Name: op.Name, Text: op.Text, Order: float64(1000 + liveContexts)}
			if i, ok := ctxIdx[op.Name]; ok {
				c.Order = contexts[i].Order
				if op.Order != nil {
					c.Order = *op.Order
				}
				contexts[i] = &c
			} else {
				if op.Order != nil {
					c.Order = *op.Order
				}
				ctxIdx[op.Name] = len(contexts)
				contexts = append(contexts, &c)
				liveContexts++
			}
		case OpRemoveContext:
			if i, ok := ctxIdx[op.Name]; ok {
				contexts[i] = nil
				delete(ctxIdx, op.Name)
				liveContexts--
			}
		case OpSuppressContexts:
			contexts, ctxIdx, liveContexts = nil, map[string]int{}, 0
			out.ContextsSuppressed = true
		}
	}
	for _, s := range sections {
		if s != nil {
			out.Sections = append(out.Sections, *s)
		}
	}
	for _, c := range contexts {
		if c != nil {
			out.Contexts = append(out.Contexts, *c)
		}
	}
	return out, nil
}
