package hooks

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/core/prompt"
)

// SourceOf is the provenance recorded for what an extension contributes.
func SourceOf(ext string) string { return "extension:" + ext }

// StartResult is what the before_agent_start chain produced.
type StartResult struct {
	// Options are the prompt options with every extension's edits applied.
	Options prompt.Options
	// Messages are texts extensions asked to inject before the user's input,
	// in load order.
	Messages []Injected
	// Forced is the forced prompt of the last extension that forced one; it
	// replaces the system text of the outgoing request only.
	Forced *Forced
}

// Injected is a message an extension injects into the conversation.
type Injected struct {
	Extension string `json:"extension"`
	Text      string `json:"text"`
}

// Forced is a whole prompt an extension forces for this run.
type Forced struct {
	Extension string `json:"extension"`
	Text      string `json:"text"`
}

// BeforeAgentStart runs the before_agent_start chain: each handler sees the
// options as the earlier ones left them. A handler's result is checked at
// its own boundary: an invalid op, or ops after which the prompt no longer
// renders (an interpolated section naming an unknown variable), fail that
// handler as a whole (none of its ops apply) and never a later one. A
// skipped handler that had a good result earlier in this dispatcher's life
// (an earlier turn) keeps that result's ops, so that a transient failure
// does not churn the prompt. Options that do not render before any handler
// runs are an error of the configuration, returned as such.
func (d *Dispatcher) BeforeAgentStart(ctx context.Context, input string, opts prompt.Options) (StartResult, error) {
	out := StartResult{Options: opts}
	if !d.anyHandles(abi.HookBeforeAgentStart) {
		return out, nil
	}
	view := newOptionsView(out.Options, input)
	if _, err := view.render(); err != nil {
		return StartResult{}, fmt.Errorf("the prompt does not render before any extension runs (check settings and prompt files): %w", err)
	}
	for _, h := range d.handlers {
		if !h.Handles(abi.HookBeforeAgentStart) {
			continue
		}
		if f, ok := h.(InputFilter); ok && !f.WantsInput(input) {
			continue
		}
		ev, err := view.event()
		fetch := view.fetch
		if out.Forced != nil {
			// An earlier handler replaced the prompt: the next one sees
			// that prompt (the established harness chains them so).
			ev.SystemPrompt, ev.SystemPromptBytes, fetch = forcedView(out.Forced.Text, view.fetch)
		}
		var next *optionsView
		var res abi.BeforeAgentStartResult
		if err == nil {
			res, err = h.BeforeAgentStart(ctx, ev, fetch)
			if err == nil {
				next, err = startStep(out.Options, res, input, h.Name())
			}
		}
		if err == nil {
			d.rememberStart(h, res)
			out.Options, view = next.opts, next
			if res.Message != "" {
				out.Messages = append(out.Messages, Injected{Extension: h.Name(), Text: res.Message})
			}
			if res.ForcePrompt != nil {
				out.Forced = &Forced{Extension: h.Name(), Text: *res.ForcePrompt}
			}
			continue
		}
		if h.FailurePolicy() != PolicyAbort {
			if last, ok := d.lastStart[h.Name()]; ok {
				if kept, kerr := startStep(out.Options, last, input, h.Name()); kerr == nil {
					d.keptLast(h, abi.HookBeforeAgentStart, err)
					out.Options, view = kept.opts, kept
					continue
				}
			}
		}
		if ferr := d.fail(h, abi.HookBeforeAgentStart, err); ferr != nil {
			return StartResult{}, ferr
		}
	}
	return out, nil
}

// anyHandles reports whether some handler handles hook. Without one the
// options are left for the caller to render (and report).
func (d *Dispatcher) anyHandles(hook string) bool {
	for _, h := range d.handlers {
		if h.Handles(hook) {
			return true
		}
	}
	return false
}

// startStep validates a before_agent_start result and applies its ops to
// opts; the result must leave a prompt that renders.
func startStep(opts prompt.Options, res abi.BeforeAgentStartResult, input, name string) (*optionsView, error) {
	if err := abi.ValidateOps(abi.HookBeforeAgentStart, res.Ops); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidResult, err)
	}
	next := newOptionsView(applyStartOps(opts, res.Ops, SourceOf(name)), input)
	if _, err := next.render(); err != nil {
		return nil, fmt.Errorf("%w: the prompt no longer renders after its ops: %v", ErrInvalidResult, err)
	}
	return next, nil
}

// rememberStart keeps the ops of a good before_agent_start result (its
// message and forced prompt belong to one turn and are not kept).
func (d *Dispatcher) rememberStart(h Handler, res abi.BeforeAgentStartResult) {
	if d.lastStart == nil {
		d.lastStart = map[string]abi.BeforeAgentStartResult{}
	}
	d.lastStart[h.Name()] = abi.BeforeAgentStartResult{Ops: res.Ops}
}

// keptLast records that a failed skip handler's last good result was used
// instead of dropping what it contributes.
func (d *Dispatcher) keptLast(h Handler, hook string, err error) {
	d.record(h, hook, err, fmt.Sprintf("extension %s failed in %s: %v; its last good result in this run is kept", h.Name(), hook, err))
}

// optionsView renders the options once so a handler can see the prompt so
// far and fetch section texts; it only renders when asked.
type optionsView struct {
	opts     prompt.Options
	input    string
	rendered *prompt.Rendered
	err      error
}

func newOptionsView(o prompt.Options, input string) *optionsView {
	return &optionsView{opts: o, input: input}
}

func (v *optionsView) render() (*prompt.Rendered, error) {
	if v.rendered == nil && v.err == nil {
		a, err := prompt.Build(v.opts)
		if err == nil {
			var r prompt.Rendered
			r, err = prompt.Render(a)
			v.rendered = &r
		}
		v.err = err
	}
	return v.rendered, v.err
}

// event builds the before_agent_start event. The input is not inlined: it
// is served under abi.KeyInput, so a guest that never reads it does not
// depend on it.
func (v *optionsView) event() (abi.BeforeAgentStartEvent, error) {
	r, err := v.render()
	if err != nil {
		return abi.BeforeAgentStartEvent{}, fmt.Errorf("render the prompt so far: %w", err)
	}
	o := v.opts
	ev := abi.BeforeAgentStartEvent{
		Options: abi.Options{
			CustomPrompt: o.CustomPrompt,
			AppendText:   o.AppendText,
			Tools:        o.SelectedTools(),
			Guidelines:   o.Guidelines,
			Cwd:          o.Cwd,
		},
	}
	for _, s := range r.Sections {
		ev.Options.Sections = append(ev.Options.Sections, abi.SectionInfo{Name: s.Name, Order: s.Order, Source: s.Source, Bytes: len(s.Text)})
	}
	for _, f := range o.ContextFiles {
		ev.Options.ContextFiles = append(ev.Options.ContextFiles, f.Path)
	}
	for _, s := range o.Skills {
		ev.Options.Skills = append(ev.Options.Skills, s.Name)
	}
	if len(r.Text) <= abi.InlinePromptMax {
		ev.SystemPrompt = r.Text
	} else {
		ev.SystemPromptBytes = len(r.Text)
	}
	return ev, nil
}

func (v *optionsView) fetch(key string) ([]byte, bool) {
	switch {
	case key == abi.KeyInput:
		return []byte(v.input), true
	case key == abi.KeySystemPrompt:
		if r, err := v.render(); err == nil {
			return []byte(r.Text), true
		}
	case key == abi.KeySkills:
		if r, err := v.render(); err == nil {
			for _, s := range r.Sections {
				if s.Name == "skills" {
					return []byte(s.Text), true
				}
			}
		}
	case strings.HasPrefix(key, abi.KeyContextPrefix):
		p := strings.TrimPrefix(key, abi.KeyContextPrefix)
		for _, f := range v.opts.ContextFiles {
			if f.Path == p {
				return []byte(f.Content), true
			}
		}
	case strings.HasPrefix(key, abi.KeySectionPrefix):
		name := strings.TrimPrefix(key, abi.KeySectionPrefix)
		if r, err := v.render(); err == nil {
			for _, s := range r.Sections {
				if s.Name == name {
					return []byte(s.Text), true
				}
			}
		}
	}
	return nil, false
}

// applyStartOps applies validated before_agent_start ops to a copy of o.
func applyStartOps(o prompt.Options, ops []abi.Op, source string) prompt.Options {
	o.Sections = append([]prompt.SectionSpec(nil), o.Sections...)
	o.Variables = append([]prompt.Variable(nil), o.Variables...)
	o.Guidelines = append([]string(nil), o.Guidelines...)
	for _, op := range ops {
		switch op.Op {
		case abi.OpSetSection:
			o.Sections = append(o.Sections, prompt.SectionSpec{
				Name: op.Name, Text: op.Text, Order: op.Order,
				Interpolate: op.Interpolate, Complete: op.Complete, Source: source,
			})
		case abi.OpRemoveSection:
			// An empty layer of the same name replaces a built-in in place
			// and then drops out; earlier extra layers go away with it.
			kept := o.Sections[:0]
			for _, s := range o.Sections {
				if s.Name != op.Name {
					kept = append(kept, s)
				}
			}
			o.Sections = append(kept, prompt.SectionSpec{Name: op.Name, Source: source})
		case abi.OpSetVariable:
			o.Variables = setVariable(o.Variables, prompt.Variable{Name: op.Name, Value: op.Value})
		case abi.OpSetCustomPrompt:
			o.CustomPrompt, o.CustomPromptSource = op.Text, source
		case abi.OpSetAppend:
			o.AppendText, o.AppendTextSource = op.Text, source
		case abi.OpAddGuideline:
			o.Guidelines = append(o.Guidelines, op.Text)
		case abi.OpSetTools:
			o.Tools = append([]string{}, op.Tools...)
		}
	}
	return o
}

func setVariable(vs []prompt.Variable, v prompt.Variable) []prompt.Variable {
	for i := range vs {
		if vs[i].Name == v.Name {
			vs[i] = v
			return vs
		}
	}
	return append(vs, v)
}

// Assemble runs the system-prompt/assemble waterfall over a. Each handler
// receives the assembly as the previous one left it; a skipped failure
// leaves it unchanged. The complete-section and suppressed-context rules of
// prompt.Waterfall apply to the final result.
func (d *Dispatcher) Assemble(ctx context.Context, a *prompt.Assembly) (*prompt.Assembly, error) {
	if d.anyHandles(abi.HookAssemble) {
		if _, err := prompt.Render(a); err != nil {
			return nil, fmt.Errorf("the prompt does not render before any extension runs (check settings and prompt files): %w", err)
		}
	}
	guard := newGuard(d.handlers)
	guard.record(a)
	var steps []prompt.Step
	for _, h := range d.handlers {
		if !h.Handles(abi.HookAssemble) {
			continue
		}
		steps = append(steps, func(cur *prompt.Assembly) (*prompt.Assembly, error) {
			next, ops, err := assembleOnce(ctx, h, cur)
			if err == nil {
				d.rememberAssemble(h, ops)
			}
			if err != nil && h.FailurePolicy() != PolicyAbort {
				if last, ok := d.lastAssemble[h.Name()]; ok {
					if kept, kerr := applyAssembleOps(cur, last, h.Name()); kerr == nil {
						d.keptLast(h, abi.HookAssemble, err)
						return kept, nil
					}
				}
			}
			if err != nil {
				if ferr := d.fail(h, abi.HookAssemble, err); ferr != nil {
					return nil, ferr
				}
				return nil, nil
			}
			if next != nil && h.FailurePolicy() == PolicyAbort {
				guard.record(next)
			}
			return next, nil
		})
	}
	// Even without steps the waterfall applies the complete-section rules.
	out, err := prompt.Waterfall(a, steps...)
	if err != nil {
		var ae *AbortError
		if errors.As(err, &ae) {
			return nil, ae
		}
		return nil, err
	}
	guard.enforce(out)
	return out, nil
}

// guard keeps the sections of fail-closed (abort) extensions. Such an
// extension exists to enforce something, so what it put in the prompt is
// put back after the waterfall if a later stage removed or changed it, and
// it stays next to a complete section (and, see Protected, a forced
// prompt). Otherwise any fail-open extension could switch a policy off.
type guard struct {
	abort map[string]bool // source → is a fail-closed extension
	kept  []prompt.Section
}

func newGuard(hs []Handler) *guard {
	g := &guard{abort: map[string]bool{}}
	for _, h := range hs {
		if h.FailurePolicy() == PolicyAbort {
			g.abort[SourceOf(h.Name())] = true
		}
	}
	return g
}

// record remembers the current sections of fail-closed extensions.
func (g *guard) record(a *prompt.Assembly) {
	for _, s := range a.Sections {
		if !g.abort[s.Source] {
			continue
		}
		replaced := false
		for i := range g.kept {
			if g.kept[i].Name == s.Name {
				g.kept[i], replaced = s, true
			}
		}
		if !replaced {
			g.kept = append(g.kept, s)
		}
	}
}

// enforce puts every kept section back as its extension last left it.
func (g *guard) enforce(a *prompt.Assembly) {
	if len(g.kept) == 0 {
		return
	}
	for _, k := range g.kept {
		cur, ok := a.Section(k.Name)
		if ok && cur == k {
			continue
		}
		k.Complete = false // a kept section never claims the whole prompt
		if ok {
			a.RemoveSection(k.Name)
		}
		a.Sections = append(a.Sections, k)
	}
	a.Sort()
}

// Protected returns the names of the sections in a that come from
// fail-closed extensions. A forced prompt replaces the structured prompt
// in the request, but these sections go with it.
func (d *Dispatcher) Protected(a *prompt.Assembly) []string {
	g := newGuard(d.handlers)
	var out []string
	for _, s := range a.Sections {
		if g.abort[s.Source] {
			out = append(out, s.Name)
		}
	}
	return out
}

// assembleOnce runs h's assemble hook on cur and returns the assembly it
// leads to (nil: unchanged) and the ops it applied. The result is checked
// at h's boundary: ops that do not apply, or after which the assembly no
// longer renders, are h's failure.
func assembleOnce(ctx context.Context, h Handler, cur *prompt.Assembly) (*prompt.Assembly, []abi.Op, error) {
	ev := toAssembleEvent(cur)
	fetch := func(key string) ([]byte, bool) {
		if name, ok := strings.CutPrefix(key, abi.KeySectionPrefix); ok {
			if s, found := cur.Section(name); found {
				return []byte(s.Text), true
			}
		}
		return nil, false
	}
	res, err := h.Assemble(ctx, ev, fetch)
	if err != nil {
		return nil, nil, err
	}
	next, err := applyAssembleOps(cur, res.Ops, h.Name())
	return next, res.Ops, err
}

// applyAssembleOps applies assemble ops of the extension name to cur.
func applyAssembleOps(cur *prompt.Assembly, ops []abi.Op, name string) (*prompt.Assembly, error) {
	if len(ops) == 0 {
		return nil, nil
	}
	next, err := abi.ApplyAssemble(toAssembleEvent(cur), ops)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidResult, err)
	}
	touched := map[string]bool{}
	for _, op := range ops {
		if op.Op == abi.OpSetSection {
			touched[op.Name] = true
		}
	}
	a, err := fromAssembleEvent(next, cur, touched, SourceOf(name))
	if err != nil {
		return nil, err
	}
	if _, err := prompt.Render(a); err != nil {
		return nil, fmt.Errorf("%w: the prompt no longer renders after its ops: %v", ErrInvalidResult, err)
	}
	return a, nil
}

// rememberAssemble keeps the ops of a good assemble result.
func (d *Dispatcher) rememberAssemble(h Handler, ops []abi.Op) {
	if d.lastAssemble == nil {
		d.lastAssemble = map[string][]abi.Op{}
	}
	d.lastAssemble[h.Name()] = ops
}

func toAssembleEvent(a *prompt.Assembly) abi.AssembleEvent {
	ev := abi.AssembleEvent{
		Sections:           make([]abi.Section, len(a.Sections)),
		ContextsSuppressed: a.SuppressContexts,
	}
	for i, s := range a.Sections {
		ev.Sections[i] = abi.Section{Name: s.Name, Order: s.Order, Text: s.Text, Interpolate: s.Interpolate, Complete: s.Complete, Source: s.Source}
	}
	for _, c := range a.Contexts {
		ev.Contexts = append(ev.Contexts, abi.Context{Name: c.Name, Order: c.Order, Text: c.Text})
	}
	for _, t := range a.Tools {
		ev.Tools = append(ev.Tools, t.Name)
	}
	for _, v := range a.Variables {
		ev.Variables = append(ev.Variables, abi.Variable{Name: v.Name, Value: v.Value})
	}
	return ev
}

func fromAssembleEvent(ev abi.AssembleEvent, prev *prompt.Assembly, touched map[string]bool, source string) (*prompt.Assembly, error) {
	out := &prompt.Assembly{SuppressContexts: ev.ContextsSuppressed}
	for _, s := range ev.Sections {
		src := s.Source
		if touched[s.Name] {
			src = source
		}
		out.Sections = append(out.Sections, prompt.Section{Name: s.Name, Order: s.Order, Text: s.Text, Interpolate: s.Interpolate, Complete: s.Complete, Source: src})
	}
	for _, c := range ev.Contexts {
		out.Contexts = append(out.Contexts, prompt.Context{Name: c.Name, Order: c.Order, Text: c.Text})
	}
	for _, v := range ev.Variables {
		out.Variables = append(out.Variables, prompt.Variable{Name: v.Name, Value: v.Value})
	}
	for _, name := range ev.Tools {
		found := false
		for _, t := range prev.Tools {
			if t.Name == name {
				out.Tools = append(out.Tools, t)
				found = true
				break
			}
		}
		if !found {
			// The waterfall may reorder or drop declared tools, never
			// declare one: pi could not answer its calls.
			return nil, fmt.Errorf("%s declared the tool %q, which was not declared before it; the assemble hook may reorder or drop tools but not add them (before_agent_start chooses the active tools)", source, name)
		}
	}
	out.Sort()
	return out, nil
}

// forcedView is the prompt fields of an event after a handler forced text:
// inline when small enough, otherwise served under abi.KeySystemPrompt.
func forcedView(text string, fetch Fetcher) (inline string, size int, f Fetcher) {
	f = func(key string) ([]byte, bool) {
		if key == abi.KeySystemPrompt {
			return []byte(text), true
		}
		return fetch(key)
	}
	if len(text) <= abi.InlinePromptMax {
		return text, 0, f
	}
	return "", len(text), f
}
