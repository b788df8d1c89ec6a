package theme

// slot says whether a role colours text or the cells behind it.
type slot uint8

const (
	fg slot = iota
	bg
)

// token is one colour role of the theme format: its name under "colors",
// its slot, and for an optional role the role it takes its colour from
// when the file leaves it out.
type token struct {
	name     string
	slot     slot
	fallback string
}

// tokens are the roles in the order the established harness's schema lists
// them (its theme-tokens table); a theme file must give every one without
// a fallback.
var tokens = [...]token{
	{"accent", fg, ""},
	{"border", fg, ""},
	{"borderAccent", fg, ""},
	{"borderMuted", fg, ""},
	{"success", fg, ""},
	{"error", fg, ""},
	{"warning", fg, ""},
	{"muted", fg, ""},
	{"dim", fg, ""},
	{"text", fg, ""},
	{"thinkingText", fg, ""},
	{"scrollbarTrack", fg, "muted"},
	{"scrollbarThumb", fg, "text"},
	{"selectedBg", bg, ""},
	{"searchMatchBg", bg, "selectedBg"},
	{"searchMatchText", fg, "text"},
	{"userMessageBg", bg, ""},
	{"userMessageText", fg, ""},
	{"customMessageBg", bg, ""},
	{"customMessageText", fg, ""},
	{"customMessageLabel", fg, ""},
	{"toolPendingBg", bg, ""},
	{"toolSuccessBg", bg, ""},
	{"toolErrorBg", bg, ""},
	{"toolTitle", fg, ""},
	{"toolOutput", fg, ""},
	{"mdHeading", fg, ""},
	{"mdLink", fg, ""},
	{"mdLinkUrl", fg, ""},
	{"mdCode", fg, ""},
	{"mdCodeBlock", fg, ""},
	{"mdCodeBlockBorder", fg, ""},
	{"mdQuote", fg, ""},
	{"mdQuoteBorder", fg, ""},
	{"mdHr", fg, ""},
	{"mdListBullet", fg, ""},
	{"toolDiffAdded", fg, ""},
	{"toolDiffRemoved", fg, ""},
	{"toolDiffContext", fg, ""},
	{"syntaxComment", fg, ""},
	{"syntaxKeyword", fg, ""},
	{"syntaxFunction", fg, ""},
	{"syntaxVariable", fg, ""},
	{"syntaxString", fg, ""},
	{"syntaxNumber", fg, ""},
	{"syntaxType", fg, ""},
	{"syntaxOperator", fg, ""},
	{"syntaxPunctuation", fg, ""},
	{"thinkingOff", fg, ""},
	{"thinkingMinimal", fg, ""},
	{"thinkingLow", fg, ""},
	{"thinkingMedium", fg, ""},
	{"thinkingHigh", fg, ""},
	{"thinkingXhigh", fg, ""},
	{"thinkingMax", fg, "thinkingXhigh"},
	{"bashMode", fg, ""}}

// Roles returns the names of every colour role, in the schema's order.
func Roles() []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = t.name
	}
	return out
}
