package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
)

// Built-in providers, usable as "openai/<model>" or "anthropic/<model>"
// without any models.json.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
)

// builtins are the providers known without configuration: name → defaults.
// Any model id is accepted for them. It is a function, not a package
// variable, so that nothing can change it.
func builtins() map[string]ProviderConfig {
	return map[string]ProviderConfig{
		"openai":    {Name: "openai", BaseURL: DefaultOpenAIBaseURL, API: APIOpenAICompletions, APIKey: "$OPENAI_API_KEY"},
		"anthropic": {Name: "anthropic", BaseURL: DefaultAnthropicBaseURL, API: APIAnthropicMessages, APIKey: "$ANTHROPIC_API_KEY"},
	}
}

// Models is the route table read from models.json.
//
// The file format is the established harness's, found in the agent
// directory:
//
//	{"providers": {
//	  "ollama": {
//	    "baseUrl": "http://localhost:11434/v1",
//	    "api": "openai-completions",
//	    "apiKey": "OLLAMA_API_KEY",
//	    "headers": {"X-Title": "pi"},
//	    "models": [{"id": "qwen3:8b", "name": "Qwen 3", "contextWindow": 32768, "maxTokens": 8192}]
//	  }
//	}}
//
// Fields this package does not use (reasoning, input, cost, authHeader, ...)
// are accepted and ignored. A model may repeat "api", "baseUrl" and
// "headers" to override its provider's; "compat": {"maxTokensField": ...}
// is honoured (see Route.MaxTokensField).
//
// apiKey and header values are resolved when a route is resolved: "$NAME"
// or "${NAME}" is the environment variable NAME (empty when unset); a bare
// upper-case name such as "OPENAI_API_KEY" is that variable when it is set
// and non-empty, and the literal text otherwise; anything else is literal.
// A value starting with "!" (a shell command in other harnesses) is refused:
// this package runs no commands.
//
// Providers keep the order of the file. A provider named "openai" or
// "anthropic" is merged over the built-in one, which fills in a missing
// baseUrl, api and apiKey.
type Models struct {
	// Path is the file that was read; Found says whether it existed.
	Path  string
	Found bool
	// Providers are the configured providers, in file order.
	Providers []ProviderConfig

	env func(string) string
}

// ProviderConfig is one entry of models.json's "providers" object.
type ProviderConfig struct {
	Name    string            `json:"-"`
	BaseURL string            `json:"baseUrl"`
	API     string            `json:"api"`
	APIKey  string            `json:"apiKey"`
	Headers map[string]string `json:"headers"`
	Models  []ModelConfig     `json:"models"`
}

// ModelConfig is one entry of a provider's "models" list.
type ModelConfig struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	API           string            `json:"api"`
	BaseURL       string            `json:"baseUrl"`
	Headers       map[string]string `json:"headers"`
	ContextWindow int               `json:"contextWindow"`
	MaxTokens     int               `json:"maxTokens"`
	Compat        struct {
		MaxTokensField string `json:"maxTokensField"`
	} `json:"compat"`
}

// LoadModels reads the models.json at path. A missing file is not an
// error: it gives a table with only the built-in providers (Found false).
// env looks up environment variables for apiKey and header values; nil
// means os.Getenv. It fails on an unreadable file or invalid content,
// naming the file.
func LoadModels(path string, env func(string) string) (*Models, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		m, _ := ParseModels(nil, env)
		m.Path = path
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("models: %w", err)
	}
	m, err := ParseModels(data, env)
	if err != nil {
		return nil, fmt.Errorf("models: %s: %w", path, err)
	}
	m.Path, m.Found = path, true
	return m, nil
}

// ParseModels parses models.json content. Empty or all-blank content is an
// empty table. It fails on invalid JSON, on a value of the wrong type, on a
// provider listed twice and on a model without an id.
func ParseModels(data []byte, env func(string) string) (*Models, error) {
	if env == nil {
		env = os.Getenv
	}
	m := &Models{env: env}
	if len(bytes.TrimSpace(data)) == 0 {
		return m, nil
	}
	var top struct {
		Providers json.RawMessage `json:"providers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	raw := bytes.TrimSpace(top.Providers)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New(`"providers" must be an object of provider name to settings`)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("providers: %w", err)
		}
		name, _ := tok.(string)
		if seen[name] {
			return nil, fmt.Errorf("provider %q is listed twice", name)
		}
		seen[name] = true
		var p ProviderConfig
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("provider %q: %w", name, err)
		}
		p.Name = name
		for i, mc := range p.Models {
			if strings.TrimSpace(mc.ID) == "" {
				return nil, fmt.Errorf("provider %q: model %d has no id", name, i)
			}
		}
		m.Providers = append(m.Providers, p)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("providers: %w", err)
	}
	return m, nil
}

// Specs lists the configured models as "provider/id", in the order Resolve
// considers them (file order). Built-in providers, which accept any id, add
// nothing unless models.json lists models for them.
func (m *Models) Specs() []string {
	var out []string
	for _, p := range m.Providers {
		for _, mc := range p.Models {
			out = append(out, p.Name+"/"+mc.ID)
		}
	}
	return out
}

// Resolve turns a model spec into a Route.
//
//   - "provider/id": the model id of that provider. For the built-in
//     providers (openai, anthropic) any id is accepted; for others it must be
//     listed. Ids may themselves contain "/": only the text before the first
//     "/" is tried as a provider name, and if no provider has that name the
//     whole spec is taken as a bare id.
//   - "id": the one configured model with that id, in any provider; an id
//     listed by several providers is an error naming them.
//   - "": the first model of models.json: the first provider in file order
//     that lists a model, and its first model.
//
// The route's API key and headers are resolved through the environment (see
// Models). A missing key is not an error here; Client.Stream then sends no
// auth header and explains a 401. It fails with an error that says what is
// configured when the spec matches nothing, and, when nothing is configured
// at all, with one that points at models.json and --dry-run.
func (m *Models) Resolve(spec string) (Route, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		for _, p := range m.Providers {
			if len(p.Models) > 0 {
				return m.route(p, p.Models[0])
			}
		}
		return Route{}, m.nothingConfigured()
	}
	if prov, id, ok := strings.Cut(spec, "/"); ok {
		if p, known := m.provider(prov); known {
			if id == "" {
				return Route{}, fmt.Errorf("model %q: missing model id after %q", spec, prov+"/")
			}
			for _, mc := range p.Models {
				if mc.ID == id {
					return m.route(p, mc)
				}
			}
			if _, builtin := builtins()[prov]; builtin {
				return m.route(p, ModelConfig{ID: id})
			}
			return Route{}, fmt.Errorf("model %q: provider %q has no model %q%s", spec, prov, id, listHint(p.Name, p.Models))
		}
	}
	var hits []string
	var route Route
	var firstErr error
	for _, p := range m.Providers {
		for _, mc := range p.Models {
			if mc.ID == spec {
				hits = append(hits, p.Name+"/"+mc.ID)
				if len(hits) == 1 {
					route, firstErr = m.route(m.merged(p), mc)
				}
			}
		}
	}
	switch len(hits) {
	case 1:
		return route, firstErr
	case 0:
		what := fmt.Sprintf("model %q is not configured", spec)
		if prov, _, ok := strings.Cut(spec, "/"); ok {
			what = fmt.Sprintf("model %q: no provider %q and no model with that id", spec, prov)
		}
		if len(m.Specs()) == 0 {
			return Route{}, fmt.Errorf("%s: %w", what, m.nothingConfigured())
		}
		return Route{}, fmt.Errorf("%s (known: %s; the built-in providers take openai/<id> and anthropic/<id>)", what, strings.Join(m.Specs(), ", "))
	}
	return Route{}, fmt.Errorf("model %q is ambiguous: it is listed as %s; write provider/id", spec, strings.Join(hits, " and "))
}

// provider returns the named provider merged over its built-in defaults.
func (m *Models) provider(name string) (ProviderConfig, bool) {
	for _, p := range m.Providers {
		if p.Name == name {
			return m.merged(p), true
		}
	}
	b, ok := builtins()[name]
	return b, ok
}

func (m *Models) merged(p ProviderConfig) ProviderConfig {
	b, ok := builtins()[p.Name]
	if !ok {
		return p
	}
	if p.BaseURL == "" {
		p.BaseURL = b.BaseURL
	}
	if p.API == "" {
		p.API = b.API
	}
	if p.APIKey == "" {
		p.APIKey = b.APIKey
	}
	return p
}

// route builds the Route of model mc of provider p.
func (m *Models) route(p ProviderConfig, mc ModelConfig) (Route, error) {
	p = m.merged(p)
	env := m.env
	if env == nil {
		env = os.Getenv
	}
	r := Route{
		Provider:       p.Name,
		ModelID:        mc.ID,
		BaseURL:        firstNonEmpty(mc.BaseURL, p.BaseURL),
		API:            firstNonEmpty(mc.API, p.API),
		Name:           mc.Name,
		ContextWindow:  mc.ContextWindow,
		MaxTokens:      mc.MaxTokens,
		MaxTokensField: mc.Compat.MaxTokensField,
	}
	label := p.Name + "/" + mc.ID
	if _, err := r.pathSuffix(); err != nil {
		return Route{}, fmt.Errorf("model %q: unsupported api %q (supported: %s, %s)", label, r.API, APIOpenAICompletions, APIAnthropicMessages)
	}
	if r.BaseURL == "" {
		return Route{}, fmt.Errorf("model %q: provider %q has no baseUrl", label, p.Name)
	}
	r.SystemInHistory = r.API == APIOpenAICompletions
	key, err := resolveValue(p.APIKey, env)
	if err != nil {
		return Route{}, fmt.Errorf("model %q: apiKey: %w", label, err)
	}
	r.APIKey = key
	if len(p.Headers)+len(mc.Headers) > 0 {
		r.Headers = make(map[string]string, len(p.Headers)+len(mc.Headers))
		for _, hs := range []map[string]string{p.Headers, mc.Headers} {
			for k, v := range hs {
				rv, err := resolveValue(v, env)
				if err != nil {
					return Route{}, fmt.Errorf("model %q: header %q: %w", label, k, err)
				}
				r.Headers[k] = rv
			}
		}
	}
	return r, nil
}

func (m *Models) nothingConfigured() error {
	where := "models.json in the agent directory"
	if m.Path != "" {
		where = m.Path
	}
	return fmt.Errorf("no model configured: list a provider and its models in %s, or pass --model openai/<id> or --model anthropic/<id>; --dry-run prints the request without sending it", where)
}

func listHint(provider string, models []ModelConfig) string {
	if len(models) == 0 {
		return " (it lists no models)"
	}
	ids := make([]string, len(models))
	for i, mc := range models {
		ids[i] = provider + "/" + mc.ID
	}
	sort.Strings(ids)
	return " (known: " + strings.Join(ids, ", ") + ")"
}

// isEnvName reports whether s looks like an environment variable name;
// upper restricts it to the conventional upper-case form.
func isEnvName(s string, upper bool) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c == '_', c >= 'A' && c <= 'Z':
		case c >= '0' && c <= '9' && i > 0:
		case c >= 'a' && c <= 'z' && !upper:
		default:
			return false
		}
	}
	return true
}

// resolveValue applies the apiKey/header value rules documented on Models.
func resolveValue(v string, env func(string) string) (string, error) {
	switch {
	case v == "":
		return "", nil
	case strings.HasPrefix(v, "!"):
		return "", errors.New(`values starting with "!" name a shell command, which pi does not run; use the key itself or an environment variable`)
	case strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}") && isEnvName(v[2:len(v)-1], false):
		return env(v[2 : len(v)-1]), nil
	case strings.HasPrefix(v, "$") && isEnvName(v[1:], false):
		return env(v[1:]), nil
	case isEnvName(v, true):
		if val := env(v); val != "" {
			return val, nil
		}
	}
	return v, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
