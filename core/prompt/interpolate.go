package prompt

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/piwasm/pi/abi"
)

// The four ways a {{name}} reference can fail. Errors returned by Render wrap
// exactly one of these; test with errors.Is.
var (
	// ErrMalformedName: a complete {{…}} group whose name is not a valid
	// variable name ({{ model }}, {{}}, {{Model}}).
	ErrMalformedName = errors.New("malformed variable name")
	// ErrMalformedGroup: a {{ that does not start a simple group although a
	// }} follows somewhere ({{{x}}}, {{a{b}}).
	ErrMalformedGroup = errors.New("malformed variable reference")
	// ErrUnknownVariable: a well-formed reference to a name never registered.
	ErrUnknownVariable = errors.New("unknown variable")
	// ErrNoValue: a reference to a variable registered without a value.
	ErrNoValue = errors.New("variable has no value")
)

// interpolationError says which reference failed where.
type interpolationError struct {
	Kind error
	// Where is `section "name"` or `context "name"`.
	Where string
	// Ref is the offending reference, or an excerpt for ErrMalformedGroup.
	Ref string
	// Known lists the registered variable names for ErrUnknownVariable.
	Known []string
}

func (e *interpolationError) Error() string {
	switch e.Kind {
	case ErrMalformedName:
		return fmt.Sprintf("%s: %q is not a valid reference; variable names match ^[a-z][a-z0-9_]*$", e.Where, e.Ref)
	case ErrMalformedGroup:
		return fmt.Sprintf("%s: broken variable reference near %q; a reference is exactly {{name}}", e.Where, e.Ref)
	case ErrUnknownVariable:
		known := "none are registered"
		if len(e.Known) > 0 {
			known = "known: " + strings.Join(e.Known, ", ")
		}
		return fmt.Sprintf("%s: no variable %q (%s)", e.Where, e.Ref, known)
	case ErrNoValue:
		return fmt.Sprintf("%s: variable %q is registered but has no value here", e.Where, e.Ref)
	}
	return fmt.Sprintf("%s: %v %q", e.Where, e.Kind, e.Ref)
}

func (e *interpolationError) Unwrap() error { return e.Kind }

// excerptUnits is how many UTF-16 code units of a broken group an error
// quotes; the established harness counts in UTF-16 and so do we.
const excerptUnits = 16

// interpolate replaces {{name}} references in text in one left-to-right pass.
// Substituted values are not scanned again. A {{ with no }} anywhere after it
// is literal text. where names the section or context for errors.
func interpolate(text string, vars []Variable, where string) (string, error) {
	i := strings.Index(text, "{{")
	if i < 0 {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text) + 32)
	rest := text
	for i >= 0 {
		// i indexes rest. A lone {{ with no later }} ends the scan: the rest
		// of the text is literal.
		closeAt := strings.Index(rest[i+2:], "}}")
		if closeAt < 0 {
			break
		}
		inner := rest[i+2 : i+2+closeAt]
		if strings.ContainsAny(inner, "{}") {
			return "", &interpolationError{Kind: ErrMalformedGroup, Where: where, Ref: excerpt(rest[i:]) + "…"}
		}
		ref := rest[i : i+2+closeAt+2]
		if abi.ValidVariableName(inner) != nil {
			return "", &interpolationError{Kind: ErrMalformedName, Where: where, Ref: ref}
		}
		val, err := lookup(vars, inner, where)
		if err != nil {
			return "", err
		}
		b.WriteString(rest[:i])
		b.WriteString(val)
		rest = rest[i+len(ref):]
		i = strings.Index(rest, "{{")
	}
	b.WriteString(rest)
	return b.String(), nil
}

func lookup(vars []Variable, name, where string) (string, error) {
	for _, v := range vars {
		if v.Name == name {
			if v.Value == nil {
				return "", &interpolationError{Kind: ErrNoValue, Where: where, Ref: "{{" + name + "}}"}
			}
			return *v.Value, nil
		}
	}
	known := make([]string, len(vars))
	for i, v := range vars {
		known[i] = v.Name
	}
	return "", &interpolationError{Kind: ErrUnknownVariable, Where: where, Ref: "{{" + name + "}}", Known: known}
}

// excerpt returns the longest prefix of s that fits in excerptUnits UTF-16
// code units without splitting a character.
func excerpt(s string) string {
	units := 0
	for i, r := range s {
		n := utf16.RuneLen(r)
		if n < 0 {
			n = 1
		}
		if units+n > excerptUnits {
			return s[:i]
		}
		units += n
	}
	return s
}
