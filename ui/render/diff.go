package render

import (
	"strings"

	"github.com/piwasm/pi/core/termtext"
)

// Diff colours a unified diff (an edit result's details.diff): added
// lines green, removed red, hunk headers blue; lines longer than width are
// cut.
func Diff(diff string, width int, st Styles) string {
	diff = strings.TrimRight(diff, "\n")
	if diff == "" {
		return ""
	}
	lines := strings.Split(diff, "\n")
	out := make([]string, len(lines))
	for i, l := range lines {
		l = truncate(expandTabs(termtext.EscapeLines(l)), width)
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
			out[i] = st.Dim.Render(l)
		case strings.HasPrefix(l, "@@"):
			out[i] = st.Hunk.Render(l)
		case strings.HasPrefix(l, "+"):
			out[i] = st.Added.Render(l)
		case strings.HasPrefix(l, "-"):
			out[i] = st.Removed.Render(l)
		default:
			out[i] = st.Context.Render(l)
		}
	}
	return strings.Join(out, "\n")
}
