package lexers

import (
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// PI-PATCH: lazyXMLLexer is an embedded XML lexer that a lexer written in
// Go builds on (HTML under Markdown, PHP, Svelte and the Go templates; the
// two Lisps under their type remapping). Upstream parsed those five XML
// files in package initialisation, which every pi process paid for; this
// parses one on its first use, which comes after the registry has loaded
// (Register only queues a lexer until then).
type lazyXMLLexer struct {
	path   string
	config *chroma.Config // replaces the file's config when set
	once   sync.Once
	lex    *chroma.RegexLexer
}

func lazyXML(path string, config *chroma.Config) *lazyXMLLexer {
	return &lazyXMLLexer{path: path, config: config}
}

func (l *lazyXMLLexer) get() *chroma.RegexLexer {
	l.once.Do(func() {
		l.lex = chroma.MustNewXMLLexer(embedded, l.path)
		if l.config != nil {
			l.lex = l.lex.SetConfig(l.config)
		}
	})
	return l.lex
}

func (l *lazyXMLLexer) Config() *chroma.Config { return l.get().Config() }

func (l *lazyXMLLexer) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	return l.get().Tokenise(options, text)
}

func (l *lazyXMLLexer) SetRegistry(registry *chroma.LexerRegistry) chroma.Lexer {
	l.get().SetRegistry(registry)
	return l
}

func (l *lazyXMLLexer) SetAnalyser(analyser func(text string) float32) chroma.Lexer {
	l.get().SetAnalyser(analyser)
	return l
}

func (l *lazyXMLLexer) AnalyseText(text string) float32 { return l.get().AnalyseText(text) }

// PI-PATCH: lazyLexer is a lexer written in Go (Go, Markdown, HTTP, ...).
// Upstream built and registered each in package initialisation; this
// builds one when the registry loads (registry registers goLexers there,
// in upstream's order) or when the package variable is first used. The
// variables are initialised statically, so the package has no start-up
// work for them.
type lazyLexer struct {
	build func() chroma.Lexer
	once  sync.Once
	lex   chroma.Lexer
}

func (l *lazyLexer) get() chroma.Lexer {
	l.once.Do(func() { l.lex = l.build() })
	return l.lex
}

func (l *lazyLexer) Config() *chroma.Config { return l.get().Config() }

func (l *lazyLexer) Tokenise(options *chroma.TokeniseOptions, text string) (chroma.Iterator, error) {
	return l.get().Tokenise(options, text)
}

func (l *lazyLexer) SetRegistry(registry *chroma.LexerRegistry) chroma.Lexer {
	l.get().SetRegistry(registry)
	return l
}

func (l *lazyLexer) SetAnalyser(analyser func(text string) float32) chroma.Lexer {
	l.get().SetAnalyser(analyser)
	return l
}

func (l *lazyLexer) AnalyseText(text string) float32 { return l.get().AnalyseText(text) }

// goLexers are the lexers written in Go, in the order upstream's package
// initialisation registered them. They are listed here, in an init, and
// not in registry itself: some build on lexers they look up (registry),
// which the compiler would take for an initialisation cycle.
var goLexers [18]chroma.Lexer

func init() {
	goLexers = [...]chroma.Lexer{
		Caddyfile, CaddyfileDirectives, CommonLisp, EmacsLisp, GenshiText,
		GenshiHTMLTemplate, Genshi, GoHTMLTemplate, GoTextTemplate, Go, Haxe,
		HTTP, Markdown, phtml, Raku, Restructuredtext, Svelte, Typoscript,
	}
}
