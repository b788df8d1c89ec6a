package render

import (
	"fmt"
	"hash/fnv"
	"strings"
	"sync"

	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	chromastyles "github.com/alecthomas/chroma/v2/styles"
	"github.com/piwasm/pi/core/theme"
)

// FromTheme builds the session's styles from a theme's roles. The system
// theme keeps glamour's standard style for markdown (its colours are the
// terminal's); every other theme gets a glamour style and a chroma style
// made from its md* and syntax* roles. Colours are written as the theme
// gives them (true colour, palette index or the terminal default); the
// terminal's colour profile reduces them to 256 or 16 colours when it has
// fewer, as Bubble Tea does for all output.
func FromTheme(t *theme.Theme) Styles {
	fg := func(role string) lipgloss.Style {
		s := lipgloss.NewStyle()
		if c := t.Color(role); !c.IsDefault() {
			s = s.Foreground(lipgloss.Color(c.Spec()))
		}
		return s
	}
	bg := func(role string) lipgloss.Style {
		s := lipgloss.NewStyle()
		if c := t.Color(role); !c.IsDefault() {
			s = s.Background(lipgloss.Color(c.Spec()))
		}
		return s
	}
	userMark := t.Color("userMessageText")
	if userMark.IsDefault() {
		userMark = t.Color("accent")
	}
	st := Styles{
		User:       lipgloss.NewStyle().Bold(true),
		Dim:        fg("dim"),
		Muted:      fg("muted"),
		Accent:     fg("accent"),
		Error:      fg("error"),
		Warning:    fg("warning"),
		Success:    fg("success"),
		Added:      fg("toolDiffAdded"),
		Removed:    fg("toolDiffRemoved"),
		Context:    fg("toolDiffContext"),
		Hunk:       fg("borderAccent"),
		Title:      fg("toolTitle").Bold(true),
		Thinking:   fg("thinkingText").Italic(t.Name != theme.System),
		ToolOutput: fg("toolOutput"),
		UserBg:     bg("userMessageBg"),
		// The message text takes its colour only on a panel: without one
		// the terminal's own text colour reads best.
		UserText:    lipgloss.NewStyle(),
		ToolPending: bg("toolPendingBg"),
		ToolSuccess: bg("toolSuccessBg"),
		ToolError:   bg("toolErrorBg"),
		Glamour:     "dark",
		ThemeName:   t.Name,
	}
	if t.Name != theme.System {
		// The system theme's prompt stays as pi drew it before themes.
		st.Levels = map[string]lipgloss.Style{}
		for _, l := range []string{"off", "minimal", "low", "medium", "high", "xhigh", "max"} {
			st.Levels[l] = fg("thinking" + strings.ToUpper(l[:1]) + l[1:])
		}
		st.BashMode = fg("bashMode")
	}
	if !userMark.IsDefault() {
		st.User = st.User.Foreground(lipgloss.Color(userMark.Spec()))
	}
	if hasBackground(st.UserBg) {
		st.UserText = fg("userMessageText")
	}
	if t.Appearance == "light" {
		st.Glamour = "light"
	}
	if t.Name != theme.System {
		st.Markdown = markdownStyle(t)
	}
	return st
}

func spec(c theme.Color) *string {
	if c.IsDefault() {
		return nil
	}
	s := c.Spec()
	return &s
}

// markdownStyle is glamour's standard style for the theme's appearance
// with the colours replaced by the theme's md* roles, and its code blocks
// highlighted by a chroma style made from the syntax* roles.
func markdownStyle(t *theme.Theme) *ansi.StyleConfig {
	cfg := styles.DarkStyleConfig
	if t.Appearance == "light" {
		cfg = styles.LightStyleConfig
	}
	yes := true
	cfg.Document.Color = spec(t.Color("text"))
	cfg.Heading.Color = spec(t.Color("mdHeading"))
	cfg.Heading.Bold = &yes
	// Glamour's H1 is a coloured label; a theme's heading is its colour.
	cfg.H1.Color, cfg.H1.BackgroundColor = spec(t.Color("mdHeading")), nil
	cfg.H6.Color = spec(t.Color("mdHeading"))
	cfg.Link.Color = spec(t.Color("mdLinkUrl"))
	cfg.LinkText.Color = spec(t.Color("mdLink"))
	cfg.Code.Color, cfg.Code.BackgroundColor = spec(t.Color("mdCode")), nil
	cfg.CodeBlock.Color = spec(t.Color("mdCodeBlock"))
	cfg.BlockQuote.Color = spec(t.Color("mdQuote"))
	cfg.HorizontalRule.Color = spec(t.Color("mdHr"))
	cfg.Enumeration.Color = spec(t.Color("mdListBullet"))
	cfg.Item.Color = spec(t.Color("mdListBullet"))
	cfg.CodeBlock.Chroma = nil
	cfg.CodeBlock.Theme = registerChroma(t)
	return &cfg
}

// chromaMu guards chroma's style registry, a package-level map that
// glamour reads when it highlights a code block.
var chromaMu sync.Mutex

// registerChroma registers the chroma style of a theme's syntax* roles
// under a name made from its colours (glamour registers its own only
// once, under one name, so two themes could not both have theirs) and
// returns the name.
func registerChroma(t *theme.Theme) string {
	hex := func(role string) string {
		c := t.Color(role)
		if c.IsDefault() {
			return ""
		}
		return c.Hex()
	}
	entries := chroma.StyleEntries{
		chroma.Text:                hex("text"),
		chroma.Comment:             hex("syntaxComment"),
		chroma.CommentPreproc:      hex("syntaxComment"),
		chroma.Keyword:             hex("syntaxKeyword"),
		chroma.KeywordType:         hex("syntaxType"),
		chroma.Operator:            hex("syntaxOperator"),
		chroma.Punctuation:         hex("syntaxPunctuation"),
		chroma.Name:                hex("syntaxVariable"),
		chroma.NameBuiltin:         hex("syntaxType"),
		chroma.NameTag:             hex("syntaxPunctuation"),
		chroma.NameAttribute:       hex("syntaxVariable"),
		chroma.NameClass:           hex("syntaxType"),
		chroma.NameConstant:        hex("syntaxNumber"),
		chroma.NameDecorator:       hex("syntaxFunction"),
		chroma.NameFunction:        hex("syntaxFunction"),
		chroma.NameOther:           hex("syntaxVariable"),
		chroma.Literal:             hex("syntaxNumber"),
		chroma.LiteralNumber:       hex("syntaxNumber"),
		chroma.LiteralString:       hex("syntaxString"),
		chroma.LiteralStringEscape: hex("syntaxString"),
		chroma.GenericDeleted:      hex("toolDiffRemoved"),
		chroma.GenericInserted:     hex("toolDiffAdded"),
		chroma.GenericEmph:         "italic",
		chroma.GenericStrong:       "bold",
	}
	for k, v := range entries {
		if v == "" {
			delete(entries, k)
		}
	}
	h := fnv.New64a()
	for _, k := range []chroma.TokenType{chroma.Text, chroma.Comment, chroma.Keyword, chroma.KeywordType, chroma.Operator, chroma.Punctuation,
		chroma.Name, chroma.NameFunction, chroma.LiteralNumber, chroma.LiteralString, chroma.GenericDeleted, chroma.GenericInserted} {
		fmt.Fprintf(h, "%s;", entries[k])
	}
	name := fmt.Sprintf("pi-theme-%x", h.Sum64())
	chromaMu.Lock()
	defer chromaMu.Unlock()
	if _, ok := chromastyles.Registry[name]; !ok {
		if s, err := chroma.NewStyle(name, entries); err == nil {
			chromastyles.Register(s)
		}
	}
	return name
}
