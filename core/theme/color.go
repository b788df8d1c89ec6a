package theme

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Color is one resolved theme colour: the terminal's default colour, an
// index of the 256-colour palette, or an sRGB value. OKLCH and OKHSL
// values are converted to sRGB when the theme is read.
type Color struct {
	kind    colorKind
	index   uint8
	r, g, b uint8
}

type colorKind uint8

const (
	kindDefault colorKind = iota
	kindIndex
	kindRGB
)

// RGB returns an sRGB colour.
func RGB(r, g, b uint8) Color { return Color{kind: kindRGB, r: r, g: g, b: b} }

// Index returns a colour of the 256-colour palette.
func Index(i uint8) Color { return Color{kind: kindIndex, index: i} }

// IsDefault reports whether c is the terminal's own default colour ("").
func (c Color) IsDefault() bool { return c.kind == kindDefault }

// PaletteIndex returns the palette index of an indexed colour.
func (c Color) PaletteIndex() (uint8, bool) { return c.index, c.kind == kindIndex }

// Spec is the colour as lipgloss.Color takes it: "" for the terminal
// default, the index as decimal text, or "#rrggbb".
func (c Color) Spec() string {
	switch c.kind {
	case kindIndex:
		return strconv.Itoa(int(c.index))
	case kindRGB:
		return fmt.Sprintf("#%02x%02x%02x", c.r, c.g, c.b)
	}
	return ""
}

// Channels returns the sRGB value; an indexed colour gives the usual xterm
// value of its index, the terminal default gives black (callers that need
// a concrete default substitute their own guess first).
func (c Color) Channels() (r, g, b uint8) {
	if c.kind == kindIndex {
		return indexRGB(c.index)
	}
	return c.r, c.g, c.b
}

// Hex is the colour as CSS "#rrggbb" (see Channels).
func (c Color) Hex() string {
	r, g, b := c.Channels()
	return fmt.Sprintf("#%02x%02x%02x", r, g, b)
}

// basic16 are the xterm values of palette colours 0-15, the ones most
// terminals start from (the real ones are the user's).
var basic16 = [16][3]uint8{
	{0, 0, 0}, {128, 0, 0}, {0, 128, 0}, {128, 128, 0}, {0, 0, 128}, {128, 0, 128}, {0, 128, 128}, {192, 192, 192},
	{128, 128, 128}, {255, 0, 0}, {0, 255, 0}, {255, 255, 0}, {0, 0, 255}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255},
}

func indexRGB(i uint8) (r, g, b uint8) {
	switch {
	case i < 16:
		c := basic16[i]
		return c[0], c[1], c[2]
	case i < 232:
		cube := [6]uint8{0, 95, 135, 175, 215, 255}
		n := i - 16
		return cube[n/36], cube[(n%36)/6], cube[n%6]
	}
	v := 8 + (i-232)*10
	return v, v, v
}

// The colour functions' syntax: a number with an optional sign, fraction
// and exponent, as CSS writes them.
const numberRE = `[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?`

// colorREs are compiled on first use: most runs never read a theme file
// (pi -p reads none), and package initialisation is start-up time.
var colorREs = sync.OnceValues(func() (*regexp.Regexp, *regexp.Regexp) {
	return regexp.MustCompile(`(?i)^oklch\(\s*(` + numberRE + `)(%)?\s+(` + numberRE + `)\s+(` + numberRE + `)(?:deg)?\s*\)$`),
		regexp.MustCompile(`(?i)^okhsl\(\s*(` + numberRE + `)(?:deg)?\s+(` + numberRE + `)(%)?\s+(` + numberRE + `)(%)?\s*\)$`)
})

// isLiteral reports whether s is written as a colour rather than as the
// name of a variable: "", "#…", "oklch(…" and "okhsl(…" are colours (and
// invalid when malformed), anything else names a variable.
func isLiteral(s string) bool {
	if s == "" || strings.HasPrefix(s, "#") {
		return true
	}
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "oklch(") || strings.HasPrefix(l, "okhsl(")
}

// parseLiteral reads a colour written as text (see isLiteral).
func parseLiteral(s string) (Color, error) {
	if s == "" {
		return Color{}, nil
	}
	if strings.HasPrefix(s, "#") {
		return parseHex(s)
	}
	lch, hsl := colorREs()
	if m := lch.FindStringSubmatch(s); m != nil {
		l, c, h := num(m[1]), num(m[3]), num(m[4])
		if m[2] != "" {
			l /= 100
		}
		switch {
		case !finite(l, c, h):
			return Color{}, fmt.Errorf("%q: the numbers must be finite", s)
		case l < 0 || l > 1:
			return Color{}, fmt.Errorf("%q: lightness must be 0-1 (or 0%%-100%%)", s)
		case c < 0:
			return Color{}, fmt.Errorf("%q: chroma must not be negative", s)
		}
		r, g, b := OKLCH(l, c, h)
		return RGB(r, g, b), nil
	}
	if m := hsl.FindStringSubmatch(s); m != nil {
		h, sat, l := num(m[1]), num(m[2]), num(m[4])
		if m[3] != "" {
			sat /= 100
		}
		if m[5] != "" {
			l /= 100
		}
		switch {
		case !finite(h, sat, l):
			return Color{}, fmt.Errorf("%q: the numbers must be finite", s)
		case sat < 0 || sat > 1:
			return Color{}, fmt.Errorf("%q: saturation must be 0-1 (or 0%%-100%%)", s)
		case l < 0 || l > 1:
			return Color{}, fmt.Errorf("%q: lightness must be 0-1 (or 0%%-100%%)", s)
		}
		r, g, b := OKHSL(h, sat, l)
		return RGB(r, g, b), nil
	}
	return Color{}, fmt.Errorf("%q is not a colour (want #rgb, #rrggbb, oklch(L C H), okhsl(H S L), 0-255, a variable or \"\")", s)
}

func parseHex(s string) (Color, error) {
	d := s[1:]
	if len(d) == 3 {
		d = string([]byte{d[0], d[0], d[1], d[1], d[2], d[2]})
	}
	if len(d) != 6 {
		return Color{}, fmt.Errorf("%q is not a colour (want #rgb or #rrggbb)", s)
	}
	v, err := strconv.ParseUint(d, 16, 32)
	if err != nil {
		return Color{}, fmt.Errorf("%q is not a colour (want #rgb or #rrggbb)", s)
	}
	return RGB(uint8(v>>16), uint8(v>>8), uint8(v)), nil
}

func num(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
	}
	return true
}
