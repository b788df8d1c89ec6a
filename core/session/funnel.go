package session

import (
	"context"
	"fmt"

	"github.com/piwasm/pi/core/hooks"
	"github.com/piwasm/pi/core/resources"
)

// Input kinds a line can turn into.
const (
	KindText     = "text"
	KindTemplate = "template"
	KindSkill    = "skill"
	KindCommand  = "command"
	KindHandled  = "handled"
)

// Funneled is what the input funnel made of a line. Send is false when
// nothing goes to the model (a handled input, or a command that only shows
// text); Show is text for the user.
type Funneled struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
	Text string `json:"text"`
	Show string `json:"show,omitempty"`
	Send bool   `json:"send"`
}

// Funnel runs a line through, in order: an extension command (runs and
// stops), the input hook chain, /skill: expansion, template expansion.
// noExpand turns the last two off. d may be nil.
func Funnel(ctx context.Context, d *hooks.Dispatcher, l *resources.Loaded, line string, noExpand bool) (Funneled, error) {
	if d != nil {
		if c, args, ok := d.FindCommand(line); ok {
			res, err := d.RunCommand(ctx, c, args, l.Cwd)
			if err != nil {
				return Funneled{}, err
			}
			return Funneled{Kind: KindCommand, Name: c.Name, Text: res.Send, Show: res.Show, Send: res.Send != ""}, nil
		}
		out, err := d.Input(ctx, line)
		if err != nil {
			return Funneled{}, err
		}
		if out.Handled {
			return Funneled{Kind: KindHandled, Show: out.Text}, nil
		}
		line = out.Text
	}
	if noExpand {
		return Funneled{Kind: KindText, Text: line, Send: true}, nil
	}
	skills := l.Skills
	if l.Values != nil && !l.Values.Bool("enableSkillCommands") {
		// Skills are not commands (settings enableSkillCommands false);
		// the model still sees them in the prompt.
		skills = nil
	}
	exp := resources.ExpandInput(line, l.Templates, skills)
	if exp.Err != nil {
		return Funneled{}, fmt.Errorf("expand %s: %w", exp.Name, exp.Err)
	}
	return Funneled{Kind: exp.Kind, Name: exp.Name, Text: exp.Text, Send: true}, nil
}
