package formatters

import (
	"io"
	"sort"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/formatters/svg"
)

// PI-PATCH: the formatters below are registered on first use of the
// registry (load), not at package initialisation; the SVG formatter and
// the full-page HTML one, which need building, are built then too.
var (
	// NoOp formatter.
	NoOp chroma.Formatter = chroma.FormatterFunc(func(w io.Writer, s *chroma.Style, iterator chroma.Iterator) error {
		for t := iterator(); t != chroma.EOF; t = iterator() {
			if _, err := io.WriteString(w, t.Value); err != nil {
				return err
			}
		}
		return nil
	})
	SVG chroma.Formatter = &lazyFormatter{build: func() chroma.Formatter {
		return svg.New(svg.EmbedFont("Liberation Mono", svg.FontLiberationMono, svg.WOFF))
	}}
)

var (
	loadMu sync.Mutex
	loaded bool
)

// load registers the formatters of this package, in upstream's order,
// before any other is registered or looked up.
func load() {
	loadMu.Lock()
	defer loadMu.Unlock()
	if loaded {
		return
	}
	loaded = true
	Registry["noop"] = NoOp
	// Default HTML formatter outputs self-contained HTML.
	Registry["html"] = html.New(html.Standalone(true), html.WithClasses(true))
	Registry["svg"] = SVG
	Registry["json"] = JSON
	Registry["tokens"] = Tokens
	Registry["terminal"] = TTY
	Registry["terminal8"] = TTY8
	Registry["terminal16"] = TTY16
	Registry["terminal256"] = TTY256
	Registry["terminal16m"] = TTY16m
}

// lazyFormatter is a formatter built on its first use.
type lazyFormatter struct {
	build func() chroma.Formatter
	once  sync.Once
	f     chroma.Formatter
}

func (l *lazyFormatter) Format(w io.Writer, style *chroma.Style, iterator chroma.Iterator) error {
	l.once.Do(func() { l.f = l.build() })
	return l.f.Format(w, style, iterator)
}

// Fallback formatter.
var Fallback = NoOp

// Registry of Formatters.
//
// PI-PATCH: it holds this package's formatters once Names, Get or
// Register has been called.
var Registry = map[string]chroma.Formatter{}

// Names of registered formatters.
func Names() []string {
	load() // PI-PATCH
	out := []string{}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get formatter by name.
//
// If the given formatter is not found, the Fallback formatter will be returned.
func Get(name string) chroma.Formatter {
	load() // PI-PATCH
	if f, ok := Registry[name]; ok {
		return f
	}
	return Fallback
}

// Register a named formatter.
func Register(name string, formatter chroma.Formatter) chroma.Formatter {
	load() // PI-PATCH
	Registry[name] = formatter
	return formatter
}
