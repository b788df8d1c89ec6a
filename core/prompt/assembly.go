package prompt

import (
	"fmt"
	"math"
	"sort"

	"github.com/piwasm/pi/abi"
)

// Order numbers of the built-in sections. Extension sections default to
// extraOrderBase plus their insertion index and may pick any finite number to
// land between these.
const (
	OrderPreamble       = 0
	OrderTools          = 100
	OrderRules          = 200
	OrderDocs           = 300
	OrderAddendum       = 400
	OrderProjectContext = 500
	OrderSkills         = 600
	OrderCwd            = 700
	extraOrderBase      = 1000
)

// Source values recorded as provenance of a section.
const (
	SourceBuiltin = "builtin"
	SourceCLI     = "cli"
)

// Section is one named part of the assembled prompt.
type Section struct {
	Name        string  `json:"name"`
	Order       float64 `json:"order"`
	Text        string  `json:"text"`
	Interpolate bool    `json:"interpolate,omitempty"`
	Complete    bool    `json:"complete,omitempty"`
	Source      string  `json:"source"`
}

// Context is runtime context rendered into a user-role snapshot, never into
// the system prompt.
type Context struct {
	Name  string  `json:"name"`
	Order float64 `json:"order"`
	Text  string  `json:"text"`
}

// Variable is a {{name}} value. A nil Value means registered without a value,
// which is an error when a section refers to it.
type Variable struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

// ToolDecl is a tool as declared to the provider.
type ToolDecl struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Parameters  []byte `json:"parameters,omitempty"`
}

// Assembly is the structured prompt between building and rendering; the
// system-prompt/assemble waterfall transforms it.
type Assembly struct {
	Sections         []Section  `json:"sections"`
	Contexts         []Context  `json:"contexts"`
	Tools            []ToolDecl `json:"tools"`
	Variables        []Variable `json:"variables"`
	SuppressContexts bool       `json:"suppressContexts,omitempty"`

	// arena holds the built-in sections' texts back to back (see Build).
	arena string
}

// Clone returns a copy whose slices can be changed without affecting a.
func (a *Assembly) Clone() *Assembly {
	if a == nil {
		return nil
	}
	return &Assembly{
		Sections:         append([]Section(nil), a.Sections...),
		Contexts:         append([]Context(nil), a.Contexts...),
		Tools:            append([]ToolDecl(nil), a.Tools...),
		Variables:        append([]Variable(nil), a.Variables...),
		SuppressContexts: a.SuppressContexts,
		arena:            a.arena,
	}
}

// Section returns the section of the given name.
func (a *Assembly) Section(name string) (Section, bool) {
	for _, s := range a.Sections {
		if s.Name == name {
			return s, true
		}
	}
	return Section{}, false
}

// SetSection adds s, or replaces the section of the same name in place
// (keeping its order unless keepOrder is false).
func (a *Assembly) SetSection(s Section, keepOrder bool) error {
	if err := abi.ValidSectionName(s.Name); err != nil {
		return err
	}
	if math.IsNaN(s.Order) || math.IsInf(s.Order, 0) {
		return fmt.Errorf("section %q: order must be a finite number", s.Name)
	}
	a.put(s, keepOrder)
	return nil
}

func (a *Assembly) put(s Section, keepOrder bool) {
	for i := range a.Sections {
		if a.Sections[i].Name == s.Name {
			if keepOrder {
				s.Order = a.Sections[i].Order
			}
			a.Sections[i] = s
			return
		}
	}
	a.Sections = append(a.Sections, s)
}

// RemoveSection deletes the named section; it reports whether one existed.
func (a *Assembly) RemoveSection(name string) bool {
	for i := range a.Sections {
		if a.Sections[i].Name == name {
			a.Sections = append(a.Sections[:i], a.Sections[i+1:]...)
			return true
		}
	}
	return false
}

// SetVariable registers or replaces a variable, keeping its first position.
func (a *Assembly) SetVariable(v Variable) error {
	if err := abi.ValidVariableName(v.Name); err != nil {
		return err
	}
	for i := range a.Variables {
		if a.Variables[i].Name == v.Name {
			a.Variables[i] = v
			return nil
		}
	}
	a.Variables = append(a.Variables, v)
	return nil
}

// SetContext adds or replaces a runtime context in place.
func (a *Assembly) SetContext(c Context) {
	for i := range a.Contexts {
		if a.Contexts[i].Name == c.Name {
			a.Contexts[i] = c
			return
		}
	}
	a.Contexts = append(a.Contexts, c)
}

// RemoveContext deletes the named runtime context.
func (a *Assembly) RemoveContext(name string) {
	for i := range a.Contexts {
		if a.Contexts[i].Name == name {
			a.Contexts = append(a.Contexts[:i], a.Contexts[i+1:]...)
			return
		}
	}
}

// Sort orders sections and contexts by order number, ties by name. The sort
// is stable so equal keys keep insertion order.
func (a *Assembly) Sort() {
	sort.SliceStable(a.Sections, func(i, j int) bool {
		x, y := &a.Sections[i], &a.Sections[j]
		if x.Order != y.Order {
			return x.Order < y.Order
		}
		return x.Name < y.Name
	})
	sort.SliceStable(a.Contexts, func(i, j int) bool {
		x, y := &a.Contexts[i], &a.Contexts[j]
		if x.Order != y.Order {
			return x.Order < y.Order
		}
		return x.Name < y.Name
	})
}

// completeSection returns the one active complete section, if any. Two are
// an error naming both.
func (a *Assembly) completeSection() (*Section, error) {
	var found *Section
	for i := range a.Sections {
		s := &a.Sections[i]
		if !s.Complete || s.Text == "" {
			continue
		}
		if found != nil {
			return nil, &conflictError{First: found.Name, Second: s.Name}
		}
		found = s
	}
	return found, nil
}

// conflictError reports two active complete sections.
type conflictError struct{ First, Second string }

func (e *conflictError) Error() string {
	return fmt.Sprintf("sections %q and %q both claim to be the complete prompt; only one may", e.First, e.Second)
}

// Step is one stage of the system-prompt/assemble waterfall. It receives a
// copy of the assembly as the previous step left it and returns the new one,
// or nil for "unchanged".
type Step func(*Assembly) (*Assembly, error)

// Waterfall runs steps in order over a. The result of the last step is
// authoritative, except that a complete section present before the waterfall
// is restored as the only section, and suppressed contexts stay empty. A
// complete section a step adds becomes the only section too; two active
// complete sections, before or after, are an error naming both. With no
// steps it still applies these rules, so callers always run it. A step
// error stops the waterfall; the hooks layer decides which errors are skipped.
func Waterfall(a *Assembly, steps ...Step) (*Assembly, error) {
	complete, err := a.completeSection()
	if err != nil {
		return nil, err
	}
	var saved Section
	if complete != nil {
		saved = *complete
	}
	suppressed := a.SuppressContexts
	cur := a
	for i, step := range steps {
		next, err := step(cur.Clone())
		if err != nil {
			return nil, fmt.Errorf("assemble step %d: %w", i+1, err)
		}
		if next != nil {
			cur = next
		}
	}
	out := cur.Clone()
	if complete != nil {
		out.Sections = []Section{saved}
	} else {
		// A step may introduce a complete section itself: the same rules
		// hold (one at most, and then it is the whole prompt).
		added, err := out.completeSection()
		if err != nil {
			return nil, err
		}
		if added != nil {
			out.Sections = []Section{*added}
		}
	}
	if suppressed || out.SuppressContexts {
		out.SuppressContexts = true
		out.Contexts = nil
	}
	out.Sort()
	return out, nil
}
