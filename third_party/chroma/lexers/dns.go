package lexers

import (
	"regexp"
)

// analyseDNS runs once the embedded lexers are loaded (pi: was an init).
func analyseDNS() {
	// TODO(moorereason): can this be factored away?
	// PI-PATCH: compiled here rather than at package initialisation.
	zoneAnalyserRe := regexp.MustCompile(`(?m)^@\s+IN\s+SOA\s+`)
	GlobalLexerRegistry.Get("dns").SetAnalyser(func(text string) float32 {
		if zoneAnalyserRe.FindString(text) != "" {
			return 1.0
		}
		return 0.0
	})
}
