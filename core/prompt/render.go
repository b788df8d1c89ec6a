package prompt

import "strings"

// RenderedSection is a section's final text, after interpolation.
type RenderedSection struct {
	Name   string  `json:"name"`
	Order  float64 `json:"order"`
	Source string  `json:"source"`
	Text   string  `json:"text"`
}

// Rendered is the prompt as the model sees it: the non-empty sections in
// order, and their texts joined by a blank line.
type Rendered struct {
	Sections []RenderedSection `json:"sections"`
	Text     string            `json:"text"`
}

// Render interpolates opt-in sections, drops empty ones and joins the rest
// with a blank line. The first failing section stops rendering. Sections are
// rendered in the assembly's order; call Sort (Build and Waterfall do) first.
func Render(a *Assembly) (Rendered, error) {
	out := Rendered{Sections: make([]RenderedSection, 0, len(a.Sections))}
	size := 0
	for _, s := range a.Sections {
		text := s.Text
		if s.Interpolate {
			var err error
			text, err = interpolate(text, a.Variables, `section "`+s.Name+`"`)
			if err != nil {
				return Rendered{}, err
			}
		}
		if text == "" {
			continue
		}
		size += len(text) + 2
		out.Sections = append(out.Sections, RenderedSection{Name: s.Name, Order: s.Order, Source: s.Source, Text: text})
	}
	if joined, ok := joinedFromArena(a.arena, out.Sections); ok {
		out.Text = joined
		return out, nil
	}
	var b strings.Builder
	b.Grow(size)
	for i, s := range out.Sections {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s.Text)
	}
	out.Text = b.String()
	return out, nil
}

// RenderContexts renders the runtime context snapshot: a header and the
// non-empty contexts joined by a blank line, or "" when there is nothing to
// say or contexts are suppressed. Contexts always interpolate.
func RenderContexts(a *Assembly) (string, error) {
	if a.SuppressContexts {
		return "", nil
	}
	var parts []string
	for _, c := range a.Contexts {
		text, err := interpolate(c.Text, a.Variables, `context "`+c.Name+`"`)
		if err != nil {
			return "", err
		}
		if text != "" {
			parts = append(parts, text)
		}
	}
	if len(parts) == 0 {
		return "", nil
	}
	return contextSnapshotHeader + "\n\n" + strings.Join(parts, "\n\n"), nil
}
