package session

import (
	"context"
	"fmt"

	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/prompt"
)

// Prepared is the prompt of one request: built from options, edited by
// before_agent_start, assembled through the waterfall and rendered.
type Prepared struct {
	Options  prompt.Options
	Assembly *prompt.Assembly
	Rendered prompt.Rendered
	// Contexts is the runtime-context snapshot ("" for none).
	Contexts string
	// Forced replaces the system text of the outgoing request only.
	Forced   *hooks.Forced
	Messages []hooks.Injected
}

// Prepare runs the prompt pipeline for one input line: before_agent_start
// (chained), build, the assemble waterfall, render. d may be nil (no
// extensions). Skipped extension failures are left in d's diagnostics; an
// abort or an invalid prompt is an error.
func Prepare(ctx context.Context, d *hooks.Dispatcher, opts prompt.Options, input string) (*Prepared, error) {
	p := &Prepared{Options: opts}
	if d != nil {
		res, err := d.BeforeAgentStart(ctx, input, opts)
		if err != nil {
			return nil, err
		}
		p.Options, p.Forced, p.Messages = res.Options, res.Forced, res.Messages
	}
	a, err := prompt.Build(p.Options)
	if err != nil {
		return nil, fmt.Errorf("build prompt: %w", err)
	}
	if d == nil {
		d = hooks.New(nil)
	}
	if a, err = d.Assemble(ctx, a); err != nil {
		return nil, err
	}
	p.Assembly = a
	if p.Rendered, err = prompt.Render(a); err != nil {
		return nil, fmt.Errorf("render prompt: %w", err)
	}
	if p.Forced != nil {
		// Sections of fail-closed extensions (policy) go with a forced
		// prompt: forcing one must not be a way around them.
		forced := *p.Forced
		for _, name := range d.Protected(a) {
			for _, s := range p.Rendered.Sections {
				if s.Name == name {
					forced.Text += "\n\n" + s.Text
				}
			}
		}
		p.Forced = &forced
	}
	if p.Contexts, err = prompt.RenderContexts(a); err != nil {
		return nil, fmt.Errorf("render runtime context: %w", err)
	}
	return p, nil
}
