package theme

import (
	"fmt"
	"math"

	"github.com/piwasm/pi/core/export"
)

// The colours assumed for the terminal's defaults where a concrete value
// is needed (the HTML export) and the terminal's own are unknown.
var guessed = map[string][2]Color{ // appearance → foreground, background
	"dark":  {RGB(0xe5, 0xe5, 0xe7), RGB(0, 0, 0)},
	"light": {RGB(0, 0, 0), RGB(0xff, 0xff, 0xff)},
}

// Palette is the theme as the HTML export's colours. appearance ("dark"
// or "light") is the terminal's, used for a theme that does not say its
// own; the terminal-default colours ("") become a guess for it. The page,
// card and info backgrounds are the file's "export" colours, else derived
// from userMessageBg as the established harness derives them.
func (t *Theme) Palette(appearance string) export.Palette {
	if t.Appearance != "" {
		appearance = t.Appearance
	}
	if appearance != "light" {
		appearance = "dark"
	}
	g := guessed[appearance]
	hex := func(role string) string {
		c := t.Color(role)
		if c.IsDefault() {
			if tk := tokens[tokenIndex(role)]; tk.slot == bg {
				c = g[1]
			} else {
				c = g[0]
			}
		}
		return c.Hex()
	}
	p := export.Palette{
		Dark:          appearance == "dark",
		Text:          hex("text"),
		Muted:         hex("muted"),
		Dim:           hex("dim"),
		Accent:        hex("accent"),
		Border:        hex("borderMuted"),
		Success:       hex("success"),
		Error:         hex("error"),
		Warning:       hex("warning"),
		UserBg:        hex("userMessageBg"),
		UserText:      hex("userMessageText"),
		ToolPendingBg: hex("toolPendingBg"),
		ToolSuccessBg: hex("toolSuccessBg"),
		ToolErrorBg:   hex("toolErrorBg"),
		ToolTitle:     hex("toolTitle"),
		ToolOutput:    hex("toolOutput"),
		ThinkingText:  hex("thinkingText"),
		Code:          hex("mdCode"),
		CodeBlock:     hex("mdCodeBlock"),
	}
	page, card, info := derive(p.UserBg)
	for i, dst := range []*string{&page, &card, &info} {
		if c := t.export[i]; c != nil {
			*dst = c.Hex()
		}
	}
	p.PageBg, p.CardBg, p.InfoBg = page, card, info
	return p
}

// derive makes the page, card and info backgrounds from the user
// message's: darker page and card for a dark colour, a slightly darker
// page for a light one, and a warm tint for the info boxes.
func derive(hex string) (page, card, info string) {
	var r, g, b int
	fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b)
	scale := func(f float64) string {
		c := func(v int) int { return int(math.Min(255, math.Max(0, math.Round(float64(v)*f)))) }
		return fmt.Sprintf("rgb(%d, %d, %d)", c(r), c(g), c(b))
	}
	lin := func(v int) float64 {
		s := float64(v) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	if 0.2126*lin(r)+0.7152*lin(g)+0.0722*lin(b) > 0.5 {
		return scale(0.96), hex, fmt.Sprintf("rgb(%d, %d, %d)", min(255, r+10), min(255, g+5), max(0, b-20))
	}
	return scale(0.7), scale(0.85), fmt.Sprintf("rgb(%d, %d, %d)", min(255, r+20), min(255, g+15), b)
}
