package provider

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

// defaultThinkingLevel is the level used when neither --thinking nor a
// ":level" suffix says otherwise (models without reasoning ignore it).
const defaultThinkingLevel = "medium"

// Selection is what the command line says about the model: --provider,
// --model (a pattern, optionally "provider/" in front and ":level" after),
// --thinking and --api-key.
type Selection struct {
	Provider string
	Model    string
	Thinking string
	APIKey   string
	// Exact turns off fuzzy matching and ":level" suffixes: Model must be
	// "provider/id" or an id.
	Exact bool

	// The settings' choices (defaultProvider, defaultModel): the model
	// when Model is empty, if both are set, the model exists and its
	// provider has a key, as the established harness decides.
	DefaultProvider, DefaultModel string
	// DefaultThinking (defaultThinkingLevel) and ModelThinking
	// (modelThinkingLevels, by "provider/id") give the level when neither
	// Thinking nor a ":level" suffix does: the model's own entry first.
	DefaultThinking string
	ModelThinking   map[string]string
	// ThinkingBudgets (settings thinkingBudgets) goes to the route.
	ThinkingBudgets map[string]int
}

// Selected is the outcome of [Models.Select]. Warning, when set, is for the
// person (a custom id taken as is, an invalid suffix ignored).
type Selected struct {
	Route   Route
	Warning string
}

// candidate is one model in the pool Select searches.
type candidate struct {
	provider ProviderConfig
	model    ModelConfig
	name     string
}

func (m *Models) pool(provider string) []candidate {
	var out []candidate
	for _, p := range m.Providers {
		if provider != "" && !strings.EqualFold(p.Name, provider) {
			continue
		}
		for _, mc := range p.Models {
			out = append(out, candidate{p, mc, m.effective(p, mc).Name})
		}
	}
	return out
}

// Select resolves a model the way the TypeScript harness resolves
// --provider/--model/--thinking:
//
//  1. an exact id, or "provider/id", case-insensitively (the named provider
//     wins over the same id elsewhere when its key is usable);
//  2. otherwise a model whose id or name contains the text, preferring
//     aliases over dated ids (-20250929) and then the highest id;
//  3. otherwise "pattern:level" with a valid level is tried without the
//     suffix, and the level applies unless --thinking is given;
//  4. otherwise, when the text names a known provider ("ollama/x", or
//     --provider), x is taken as a custom id of that provider, with a
//     warning (none for a built-in provider, which has no list to miss).
//
// An id matched on several providers is an error listing them. --api-key
// replaces the configured key of the chosen provider. The thinking level is
// --thinking, else the suffix, else defaultThinkingLevel, clamped to what
// the model supports.
func (m *Models) Select(s Selection) (Selected, error) {
	text := strings.TrimSpace(s.Model)
	if s.Thinking != "" && !validThinkingLevel(s.Thinking) {
		return Selected{}, fmt.Errorf("--thinking %q: want one of %s", s.Thinking, strings.Join(thinkingLevels[:], ", "))
	}
	if text == "" {
		if s.Provider != "" {
			return Selected{}, errors.New("--provider needs --model")
		}
		if s.DefaultProvider != "" && s.DefaultModel != "" {
			d := s
			d.Model, d.Exact = s.DefaultProvider+"/"+s.DefaultModel, true
			d.DefaultProvider, d.DefaultModel = "", ""
			if sel, err := m.Select(d); err == nil && m.hasKey(sel.Route.Provider) {
				return sel, nil
			}
		}
		for _, p := range m.Providers {
			if len(p.Models) > 0 {
				return m.finish(s, candidate{provider: p, model: p.Models[0]}, "", "")
			}
		}
		return Selected{}, m.nothingConfigured()
	}
	if s.Provider != "" {
		if _, ok := m.providerNamed(strings.ToLower(s.Provider)); !ok {
			if _, ok := m.providerNamed(s.Provider); !ok {
				return Selected{}, fmt.Errorf("unknown provider %q: use --list-models to see the providers and models", s.Provider)
			}
		}
	}
	pool := m.pool(s.Provider)
	// A key given on the command line goes to whichever provider is chosen,
	// so configured keys must not choose it.
	usable := func(p string) bool { return s.APIKey == "" && m.hasKey(p) }
	c, level, warning, err := m.lookup(text, s, pool, usable)
	if err != nil {
		return Selected{}, err
	}
	if c != nil {
		return m.finish(s, *c, level, warning)
	}
	// A custom id of a known provider.
	provName, id := s.Provider, text
	if provName == "" {
		var ok bool
		provName, id, ok = m.splitKnownProvider(text)
		if !ok {
			return Selected{}, m.notFound(text)
		}
	}
	p, _ := m.providerNamed(m.canonicalProvider(provName))
	if !s.Exact && s.Thinking == "" {
		if base, lvl, ok := splitThinking(id); ok {
			id, level = base, lvl
		}
	}
	if id == "" {
		return Selected{}, fmt.Errorf("model %q: missing model id after %q", text, provName+"/")
	}
	warning = ""
	_, builtin := builtins()[p.Name]
	mc := ModelConfig{ID: id}
	if len(p.Models) > 0 && !builtin {
		warning = fmt.Sprintf("model %q is not listed for provider %q; using it as a custom model id", id, p.Name)
		// The other harness copies the provider's first model's settings.
		mc = p.Models[0]
		mc.ID, mc.Name = id, id
	}
	if lvl := firstNonEmpty(s.Thinking, level); lvl != "" && lvl != "off" {
		yes := true
		mc.Reasoning = &yes
	}
	return m.finish(s, candidate{provider: p, model: mc}, level, warning)
}

func (m *Models) canonicalProvider(name string) string {
	for _, p := range m.Providers {
		if strings.EqualFold(p.Name, name) {
			return p.Name
		}
	}
	if _, ok := builtins()[strings.ToLower(name)]; ok {
		return strings.ToLower(name)
	}
	return name
}

// splitKnownProvider splits "provider/rest" when provider is configured or
// built in (the longest matching name wins: names may contain "/").
func (m *Models) splitKnownProvider(text string) (string, string, bool) {
	names := sortedKeys(builtins())
	for _, p := range m.Providers {
		names = append(names, p.Name)
	}
	best, rest := "", ""
	for _, n := range names {
		if len(text) > len(n) && strings.EqualFold(text[:len(n)], n) && text[len(n)] == '/' && len(n) > len(best) {
			best, rest = n, strings.TrimSpace(text[len(n)+1:])
		}
	}
	return best, rest, best != ""
}

func (m *Models) finish(s Selection, c candidate, level, warning string) (Selected, error) {
	lvl := firstNonEmpty(s.Thinking, level, s.ModelThinking[c.provider.Name+"/"+c.model.ID], s.DefaultThinking, defaultThinkingLevel)
	r, err := m.route(c.provider, c.model, lvl, s.APIKey)
	if err != nil {
		return Selected{}, err
	}
	r.ThinkingBudgets = s.ThinkingBudgets
	return Selected{Route: r, Warning: warning}, nil
}

// lookup finds text in the pool: exact, fuzzy, then with a thinking suffix.
func (m *Models) lookup(text string, s Selection, pool []candidate, usable func(string) bool) (*candidate, string, string, error) {
	c, err := m.reference(text, pool, !s.Exact, usable, s.APIKey != "")
	if c != nil || err != nil {
		return c, "", "", err
	}
	if !s.Exact {
		if c, err := m.fuzzy(text, pool, usable, s.APIKey != ""); c != nil || err != nil {
			return c, "", "", err
		}
		if base, lvl, ok := splitThinking(text); ok {
			c, _, _, err := m.lookup(base, s, pool, usable)
			if c != nil || err != nil {
				return c, lvl, "", err
			}
		}
	}
	return nil, "", "", nil
}

func splitThinking(text string) (base, level string, ok bool) {
	i := strings.LastIndexByte(text, ':')
	if i < 0 || !validThinkingLevel(text[i+1:]) {
		return "", "", false
	}
	return text[:i], text[i+1:], true
}

// reference is step 1 of Select.
func (m *Models) reference(text string, pool []candidate, fuzzy bool, usable func(string) bool, inlineKey bool) (*candidate, error) {
	var raw []candidate
	for _, c := range pool {
		if strings.EqualFold(c.model.ID, text) {
			raw = append(raw, c)
		}
	}
	var named *candidate
	if prov, rest, ok := m.splitPoolProvider(text, pool); ok {
		var own []candidate
		for _, c := range pool {
			if c.provider.Name == prov {
				own = append(own, c)
			}
		}
		for i := range own {
			if strings.EqualFold(own[i].model.ID, rest) {
				named = &own[i]
				break
			}
		}
		if named == nil {
			for i := range raw {
				if raw[i].provider.Name == prov {
					named = &raw[i]
					break
				}
			}
		}
		if named == nil && fuzzy {
			named = bestFuzzy(fuzzyMatches(rest, own))
		}
	}
	var others []candidate
	for _, c := range raw {
		if named == nil || c.provider.Name != named.provider.Name || c.model.ID != named.model.ID {
			others = append(others, c)
		}
	}
	all := others
	if named != nil {
		all = append([]candidate{*named}, others...)
	}
	if len(all) == 0 {
		return nil, nil
	}
	if providersOf(all) == 1 {
		return &all[0], nil
	}
	if named != nil && usable(named.provider.Name) {
		return named, nil
	}
	var usableOthers []candidate
	for _, c := range others {
		if usable(c.provider.Name) {
			usableOthers = append(usableOthers, c)
		}
	}
	if len(usableOthers) == 1 {
		return &usableOthers[0], nil
	}
	if len(usableOthers) == 0 && named != nil {
		return named, nil
	}
	return nil, ambiguous(text, all, inlineKey, len(usableOthers))
}

func (m *Models) splitPoolProvider(text string, pool []candidate) (string, string, bool) {
	best, rest := "", ""
	for _, c := range pool {
		n := c.provider.Name
		if len(n) <= len(best) || len(text) <= len(n) || !strings.EqualFold(text[:len(n)], n) || text[len(n)] != '/' {
			continue
		}
		if r := strings.TrimSpace(text[len(n)+1:]); r != "" {
			best, rest = n, r
		}
	}
	return best, rest, best != ""
}

func providersOf(cs []candidate) int {
	seen := map[string]bool{}
	for _, c := range cs {
		seen[c.provider.Name] = true
	}
	return len(seen)
}

func ambiguous(text string, cs []candidate, inlineKey bool, usableCount int) error {
	var names []string
	for _, c := range cs {
		names = append(names, c.provider.Name+"/"+c.model.ID)
	}
	sort.Strings(names)
	hint := "more than one of their providers has a key"
	switch {
	case inlineKey:
		hint = "--api-key does not choose a provider"
	case usableCount == 0:
		hint = "none of their providers has a key"
	}
	return fmt.Errorf("model %q matches several providers: %s (%s); use --provider or provider/model", text, strings.Join(names, ", "), hint)
}

func fuzzyMatches(text string, pool []candidate) []candidate {
	t := strings.ToLower(text)
	var out []candidate
	for _, c := range pool {
		if strings.Contains(strings.ToLower(c.model.ID), t) || strings.Contains(strings.ToLower(c.name), t) {
			out = append(out, c)
		}
	}
	return out
}

// isAlias: "-latest" ids and ids without a trailing -YYYYMMDD date.
func isAlias(id string) bool {
	if strings.HasSuffix(id, "-latest") {
		return true
	}
	if len(id) < 9 || id[len(id)-9] != '-' {
		return true
	}
	for _, c := range id[len(id)-8:] {
		if c < '0' || c > '9' {
			return true
		}
	}
	return false
}

func bestFuzzy(ms []candidate) *candidate {
	if len(ms) == 0 {
		return nil
	}
	var aliases []candidate
	for _, c := range ms {
		if isAlias(c.model.ID) {
			aliases = append(aliases, c)
		}
	}
	if len(aliases) > 0 {
		ms = aliases
	}
	best := ms[0]
	for _, c := range ms[1:] {
		if c.model.ID > best.model.ID {
			best = c
		}
	}
	return &best
}

// fuzzy is step 2 of Select.
func (m *Models) fuzzy(text string, pool []candidate, usable func(string) bool, inlineKey bool) (*candidate, error) {
	ms := fuzzyMatches(text, pool)
	if len(ms) == 0 {
		return nil, nil
	}
	candidates := ms
	if providersOf(ms) > 1 {
		var ok []candidate
		for _, c := range ms {
			if usable(c.provider.Name) {
				ok = append(ok, c)
			}
		}
		if len(ok) > 0 {
			candidates = ok
		}
	}
	best := bestFuzzy(candidates)
	var tied []candidate
	for _, c := range candidates {
		if c.model.ID == best.model.ID {
			tied = append(tied, c)
		}
	}
	if providersOf(tied) == 1 {
		return best, nil
	}
	return nil, ambiguous(text, tied, inlineKey, len(tied))
}

func (m *Models) notFound(text string) error {
	if len(m.Specs()) == 0 {
		return fmt.Errorf("model %q not found: %w", text, m.nothingConfigured())
	}
	return fmt.Errorf("model %q not found (configured: %s; built-in providers take provider/<id>, e.g. openai/<id>); --list-models shows them", text, strings.Join(m.Specs(), ", "))
}

// ScopedModel is one model a --models pattern chose, with the pattern's
// thinking level ("" when it gave none).
type ScopedModel struct {
	Provider, ID, Thinking string
}

// Scope resolves --models patterns (comma-separated on the command line)
// as the other harness does: a pattern with *, ? or [ is a glob matched
// case-insensitively against "provider/id" and against the id, with an
// optional ":level" after it; any other pattern resolves like --model
// (fuzzy, ":level" allowed), and when it matches the same id on several
// providers all are taken. Patterns matching nothing, ambiguous patterns
// and invalid levels give warnings, not errors. Duplicates are dropped.
func (m *Models) Scope(patterns []string) ([]ScopedModel, []string) {
	var out []ScopedModel
	var warnings []string
	add := func(c candidate, level string) {
		for _, o := range out {
			if o.Provider == c.provider.Name && o.ID == c.model.ID {
				return
			}
		}
		out = append(out, ScopedModel{c.provider.Name, c.model.ID, level})
	}
	// Only models whose provider has a key take part, and among them keys
	// cannot break ties: a pattern naming the same id on two providers
	// takes both, with a warning.
	var pool []candidate
	for _, c := range m.pool("") {
		if m.hasKey(c.provider.Name) {
			pool = append(pool, c)
		}
	}
	all := func(string) bool { return true }
	for _, pat := range patterns {
		pat = strings.TrimSpace(pat)
		if pat == "" {
			continue
		}
		if strings.ContainsAny(pat, "*?[") {
			glob, level := pat, ""
			if b, l, ok := splitThinking(pat); ok {
				glob, level = b, l
			}
			if c, err := m.reference(glob, pool, false, all, false); c != nil {
				add(*c, level)
				continue
			} else if err != nil {
				warnings = append(warnings, fmt.Sprintf("pattern %q: %v", pat, err))
			}
			n := 0
			for _, c := range pool {
				if globMatch(glob, c.provider.Name+"/"+c.model.ID) || globMatch(glob, c.model.ID) {
					add(c, level)
					n++
				}
			}
			if n == 0 {
				warnings = append(warnings, fmt.Sprintf("no models match pattern %q", pat))
			}
			continue
		}
		c, level, _, err := m.lookup(pat, Selection{}, pool, all)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("pattern %q: %v", pat, err))
			// All of the tied models are taken.
			for _, t := range pool {
				if strings.EqualFold(t.model.ID, pat) {
					add(t, "")
				}
			}
			continue
		}
		if c == nil {
			if i := strings.LastIndexByte(pat, ':'); i >= 0 {
				if c2, _, _, _ := m.lookup(pat[:i], Selection{}, pool, all); c2 != nil {
					warnings = append(warnings, fmt.Sprintf("invalid thinking level %q in pattern %q; using the default", pat[i+1:], pat))
					add(*c2, "")
					continue
				}
			}
			warnings = append(warnings, fmt.Sprintf("no models match pattern %q", pat))
			continue
		}
		add(*c, level)
	}
	return out, warnings
}

// globMatch matches case-insensitively; as in the other harness "*" stops
// at "/", and patterns are tried on "provider/id" and on the id alone, so
// "anthropic/*" and "*sonnet*" both work.
func globMatch(pattern, s string) bool {
	ok, err := path.Match(strings.ToLower(pattern), strings.ToLower(s))
	return err == nil && ok
}

// ListModels returns the models --list-models shows: every model whose
// provider's key is usable, filtered by search (all of its space- or
// slash-separated words must match "provider id" as in-order letters),
// sorted by provider then id.
func (m *Models) ListModels(search string) []ModelInfo {
	var out []ModelInfo
	for _, mi := range m.All() {
		if !mi.Usable {
			continue
		}
		if search != "" && !fuzzyFilterMatch(search, mi.Provider+" "+mi.ID) {
			continue
		}
		out = append(out, mi)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Provider != out[j].Provider {
			return out[i].Provider < out[j].Provider
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func fuzzyFilterMatch(query, text string) bool {
	text = strings.ToLower(text)
	for _, tok := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return r == '/' || r == ' ' || r == '\t' || r == '\n' }) {
		if !subsequence(tok, text) && !subsequence(swapAlnum(tok), text) {
			return false
		}
	}
	return true
}

// swapAlnum turns "gpt4" into "4gpt" and back, as the other harness's
// search also tries.
func swapAlnum(s string) string {
	i := 0
	for i < len(s) && s[i] >= 'a' && s[i] <= 'z' {
		i++
	}
	if i > 0 && i < len(s) && allDigits(s[i:]) {
		return s[i:] + s[:i]
	}
	i = 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && allLetters(s[i:]) {
		return s[i:] + s[:i]
	}
	return s
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func allLetters(s string) bool {
	for _, c := range s {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func subsequence(q, text string) bool {
	j := 0
	for i := 0; i < len(text) && j < len(q); i++ {
		if text[i] == q[j] {
			j++
		}
	}
	return j == len(q)
}

// FormatModelList renders models as the --list-models table: provider,
// model, context, max-out, thinking, images, columns padded and joined by
// two spaces.
func FormatModelList(models []ModelInfo) string {
	rows := [][]string{{"provider", "model", "context", "max-out", "thinking", "images"}}
	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	for _, mi := range models {
		rows = append(rows, []string{mi.Provider, mi.ID, formatTokens(mi.ContextWindow), formatTokens(mi.MaxTokens), yesNo(mi.Reasoning), yesNo(mi.Images)})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			widths[i] = max(widths[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-len(c)))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// formatTokens writes 8192 as 8.2K, 128000 as 128K and 1048576 as 1.0M.
func formatTokens(n int) string {
	switch {
	case n >= 1_000_000:
		if n%1_000_000 == 0 {
			return fmt.Sprintf("%dM", n/1_000_000)
		}
		return fmt.Sprintf("%.1fM", float64(n)/1_000_000)
	case n >= 1_000:
		if n%1_000 == 0 {
			return fmt.Sprintf("%dK", n/1_000)
		}
		return fmt.Sprintf("%.1fK", float64(n)/1_000)
	}
	return fmt.Sprint(n)
}
