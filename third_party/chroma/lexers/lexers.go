package lexers

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers.
//
// pi: the embedded XML lexers are registered on first use (see registry),
// not at package initialisation, so a process that never highlights code
// does not parse their configurations at start-up.
var GlobalLexerRegistry = chroma.NewLexerRegistry()

var (
	loadMu sync.Mutex
	loaded bool
	early  []chroma.Lexer // registered before the embedded lexers were loaded
)

// registry registers the embedded lexers (then the ones registered before
// them, in order, as the eager registry had them) and returns the registry.
func registry() *chroma.LexerRegistry {
	loadMu.Lock()
	defer loadMu.Unlock()
	if !loaded {
		loaded = true
		paths, err := fs.Glob(embedded, "embedded/*.xml")
		if err != nil {
			panic(err)
		}
		for _, path := range paths {
			GlobalLexerRegistry.Register(chroma.MustNewXMLLexer(embedded, path))
		}
		for _, l := range goLexers { // PI-PATCH: were registered at initialisation
			GlobalLexerRegistry.Register(l)
		}
		for _, l := range early {
			GlobalLexerRegistry.Register(l)
		}
		early = nil
		analyseDNS()
		analyseMySQL()
		analyseZed()
	}
	return GlobalLexerRegistry
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return registry().Names(withAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	return registry().Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	return registry().MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	return registry().Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	loadMu.Lock()
	defer loadMu.Unlock()
	if !loaded {
		early = append(early, lexer)
		return lexer
	}
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	return registry().Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback lexer if no other is found.
// PI-PATCH: built on first use (lazy.go).
var Fallback chroma.Lexer = &lazyLexer{build: func() chroma.Lexer {
	return chroma.MustNewLexer(&chroma.Config{
		Name:      "fallback",
		Filenames: []string{"*"},
		Priority:  -1,
	}, PlaintextRules)
}}
