package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"sort"
	"strings"
)

// Built-in providers' default base URLs.
const (
	DefaultOpenAIBaseURL    = "https://api.openai.com/v1"
	defaultAnthropicBaseURL = "https://api.anthropic.com"
	defaultGoogleBaseURL    = "https://generativelanguage.googleapis.com/v1beta"
)

// openRouterAnthropicBaseURL is where OpenRouter takes Anthropic Messages
// requests (the SDK adds /v1/messages).
const openRouterAnthropicBaseURL = "https://openrouter.ai/api"

// openRouterAnthropic reports whether an OpenRouter model id is one of
// Anthropic's models that OpenRouter serves over the Messages API (its
// "~anthropic/…-latest" aliases included); the ":batch" variants go over
// chat completions.
func openRouterAnthropic(id string) bool {
	id = strings.TrimPrefix(id, "~")
	return strings.HasPrefix(id, "anthropic/") && !strings.HasSuffix(id, ":batch")
}

// builtinProvider is a provider known without configuration. It has no model
// catalog: any model id is accepted, as a custom id is in the other harness.
type builtinProvider struct {
	api, baseURL, keyEnv string
}

// builtins are the providers known without models.json, with the API,
// endpoint and key variable the TypeScript harness uses for them. It is a
// function, not a package variable, so that nothing can change it.
func builtins() map[string]builtinProvider {
	return map[string]builtinProvider{
		"openai":      {APIOpenAIResponses, DefaultOpenAIBaseURL, "OPENAI_API_KEY"},
		"anthropic":   {APIAnthropicMessages, defaultAnthropicBaseURL, "ANTHROPIC_API_KEY"},
		"google":      {APIGoogleGenerativeAI, defaultGoogleBaseURL, "GEMINI_API_KEY"},
		"azure":       {APIAzureOpenAIResponses, "", "AZURE_OPENAI_API_KEY"},
		"openrouter":  {APIOpenAICompletions, "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"},
		"groq":        {APIOpenAICompletions, "https://api.groq.com/openai/v1", "GROQ_API_KEY"},
		"cerebras":    {APIOpenAICompletions, "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY"},
		"deepseek":    {APIOpenAICompletions, "https://api.deepseek.com", "DEEPSEEK_API_KEY"},
		"together":    {APIOpenAICompletions, "https://api.together.ai/v1", "TOGETHER_API_KEY"},
		"fireworks":   {APIOpenAICompletions, "https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY"},
		"huggingface": {APIOpenAICompletions, "https://router.huggingface.co/v1", "HF_TOKEN"},
		"nvidia":      {APIOpenAICompletions, "https://integrate.api.nvidia.com/v1", "NVIDIA_API_KEY"},
		"moonshotai":  {APIOpenAICompletions, "https://api.moonshot.ai/v1", "MOONSHOT_API_KEY"},
		"zai":         {APIOpenAICompletions, "https://api.z.ai/api/coding/paas/v4", "ZAI_API_KEY"},
		"xai":         {APIOpenAIResponses, "https://api.x.ai/v1", "XAI_API_KEY"},
	}
}

// Models is the route table read from models.json, the TypeScript
// harness's file in the agent directory (its docs/models.md and
// docs/models-configuration.md describe every field):
//
//	{"providers": {
//	  "ollama": {
//	    "baseUrl": "http://localhost:11434/v1",
//	    "api": "openai-completions",
//	    "apiKey": "ollama",
//	    "headers": {"X-Title": "pi"},
//	    "compat": {"maxTokensField": "max_tokens"},
//	    "models": [{"id": "qwen3:8b", "reasoning": true, "contextWindow": 32768, "maxTokens": 8192}]
//	  },
//	  "anthropic": {"baseUrl": "https://proxy.example.com/v1"}
//	}}
//
// Line comments (//) and trailing commas are allowed, as there. Every field of that format
// is accepted; the ones that shape a request are honoured (api, baseUrl,
// apiKey, headers, authHeader, compat, reasoning, thinkingLevelMap,
// maxTokens, samplingParams, samplingParamsByThinkingLevel,
// modelOverrides); cost and promptCache price the model's usage and drive
// cache warming; the ones about features pi does not have (inputLimits,
// oauth) are read and checked but change nothing.
// A value of the wrong type is an error naming its path
// (providers.ollama.models[0].contextWindow). An API pi cannot speak is an
// error when a model using it is chosen, naming the field.
//
// apiKey and header values resolve as described in configvalue.go: "$NAME",
// "${NAME}", "$$", "$!" and "!command".
//
// Providers keep the order of the file. A provider that names a built-in one
// (openai, anthropic, google, openrouter, ...) changes it: its baseUrl,
// apiKey, headers and compat apply to every model of that provider, listed
// or not, and its models and modelOverrides describe models by id.
type Models struct {
	// Path is the file that was read; Found says whether it existed.
	Path  string
	Found bool
	// Providers are the configured providers, in file order.
	Providers []ProviderConfig
	// Stored are credentials from auth.json by provider, set by the
	// caller: they win over models.json's apiKey and the environment
	// (only --api-key wins over them), as in the established harness.
	Stored map[string]StoredKey

	values *valueResolver
}

// ProviderConfig is one entry of models.json's "providers" object.
type ProviderConfig struct {
	Name           string // the key in "providers"
	DisplayName    string // "name"
	BaseURL        string
	API            string
	APIKey         string
	OAuth          string
	Headers        map[string]string
	Compat         map[string]json.RawMessage
	AuthHeader     *bool
	Models         []ModelConfig
	ModelOverrides map[string]ModelConfig
}

// ModelConfig is one entry of a provider's "models" list, or one
// "modelOverrides" value (then ID is the key). Zero or nil means "not set".
type ModelConfig struct {
	ID               string
	Name             string
	API              string
	BaseURL          string
	Reasoning        *bool
	ThinkingLevelMap map[string]*string // a nil value marks the level unsupported
	Input            []string
	ContextWindow    int
	MaxTokens        int
	SamplingParams   map[string]json.RawMessage
	SamplingByLevel  map[string]map[string]json.RawMessage
	Headers          map[string]string
	Compat           map[string]json.RawMessage
	// Cost and PromptCache price the model's tokens and say how long its
	// provider keeps a prompt cache entry (cache warming and cache-miss
	// notices read them).
	Cost        *costConfig
	PromptCache *PromptCache
}

// Documented defaults of a model entry.
const (
	defaultContextWindow = 128000
	defaultMaxTokens     = 16384
)

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
// empty table. It fails on invalid JSON, on a value of the wrong type (the
// error names its path), on a provider listed twice, on a model without an
// id and on a provider that sets nothing.
func ParseModels(data []byte, env func(string) string) (*Models, error) {
	if env == nil {
		env = os.Getenv
	}
	m := &Models{values: &valueResolver{env: env}}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(bytes.TrimSpace(data)) == 0 {
		return m, nil
	}
	data = stripJSONComments(data)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, errors.New("the file must hold a JSON object")
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if s, ok := top["$schema"]; ok {
		var v string
		if json.Unmarshal(s, &v) != nil {
			return nil, errors.New("$schema: want a string")
		}
	}
	raw, ok := top["providers"]
	if !ok || isNull(raw) {
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New(`providers: want an object of provider name to settings`)
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
		var praw json.RawMessage
		if err := dec.Decode(&praw); err != nil {
			return nil, fmt.Errorf("providers.%s: %w", name, err)
		}
		p, err := parseProvider(name, praw)
		if err != nil {
			return nil, err
		}
		m.Providers = append(m.Providers, p)
	}
	return m, nil
}

func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// fields reads the members of one JSON object, checking types and naming
// the path of a bad value.
type fields struct {
	path string
	m    map[string]json.RawMessage
	err  error
}

func newFields(path string, raw json.RawMessage) (*fields, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fmt.Errorf("%s: want an object", path)
	}
	return &fields{path: path, m: m}, nil
}

func (f *fields) fail(key, format string, args ...any) {
	if f.err == nil {
		f.err = fmt.Errorf("%s.%s: %s", f.path, key, fmt.Sprintf(format, args...))
	}
}

func (f *fields) str(key string) string {
	raw, ok := f.m[key]
	if !ok || isNull(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		f.fail(key, "want a string")
		return ""
	}
	if s == "" {
		f.fail(key, "must not be empty")
	}
	return s
}

func (f *fields) boolean(key string) *bool {
	raw, ok := f.m[key]
	if !ok || isNull(raw) {
		return nil
	}
	var b bool
	if json.Unmarshal(raw, &b) != nil {
		f.fail(key, "want true or false")
		return nil
	}
	return &b
}

// positive reads a number > 0 (the file may write 8192 or 8192.0).
func (f *fields) positive(key string) int {
	raw, ok := f.m[key]
	if !ok || isNull(raw) {
		return 0
	}
	var n float64
	if json.Unmarshal(raw, &n) != nil || n <= 0 || n > math.MaxInt32 {
		f.fail(key, "want a number greater than 0")
		return 0
	}
	return int(n)
}

func (f *fields) object(key string) map[string]json.RawMessage {
	raw, ok := f.m[key]
	if !ok || isNull(raw) {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		f.fail(key, "want an object")
		return nil
	}
	return m
}

func (f *fields) strings(key string) map[string]string {
	raw, ok := f.m[key]
	if !ok || isNull(raw) {
		return nil
	}
	var m map[string]string
	if json.Unmarshal(raw, &m) != nil {
		f.fail(key, "want an object of strings")
		return nil
	}
	return m
}

func parseProvider(name string, raw json.RawMessage) (ProviderConfig, error) {
	path := "providers." + name
	f, err := newFields(path, raw)
	if err != nil {
		return ProviderConfig{}, err
	}
	p := ProviderConfig{
		Name:        name,
		DisplayName: f.str("name"),
		BaseURL:     f.str("baseUrl"),
		API:         f.str("api"),
		APIKey:      f.str("apiKey"),
		OAuth:       f.str("oauth"),
		Headers:     f.strings("headers"),
		Compat:      f.object("compat"),
		AuthHeader:  f.boolean("authHeader"),
	}
	if f.err != nil {
		return p, f.err
	}
	if p.OAuth != "" && p.OAuth != "radius" {
		return p, fmt.Errorf(`%s.oauth: the only login flow is "radius", not %q`, path, p.OAuth)
	}
	if p.OAuth != "" && p.BaseURL == "" {
		return p, fmt.Errorf(`%s: "baseUrl" is required when "oauth" is set`, path)
	}
	if err := checkCompat(path+".compat", p.Compat); err != nil {
		return p, err
	}
	if raw, ok := f.m["models"]; ok && !isNull(raw) {
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return p, fmt.Errorf("%s.models: want a list of models", path)
		}
		for i, mr := range list {
			mc, err := parseModel(fmt.Sprintf("%s.models[%d]", path, i), mr, false)
			if err != nil {
				return p, err
			}
			p.Models = append(p.Models, mc)
		}
	}
	if ov := f.object("modelOverrides"); ov != nil {
		p.ModelOverrides = map[string]ModelConfig{}
		for id, r := range ov {
			mc, err := parseModel(fmt.Sprintf("%s.modelOverrides[%q]", path, id), r, true)
			if err != nil {
				return p, err
			}
			mc.ID = id
			p.ModelOverrides[id] = mc
		}
	}
	if f.err != nil {
		return p, f.err
	}
	if _, builtin := builtins()[name]; !builtin && len(p.Models) == 0 && p.BaseURL == "" && p.Headers == nil &&
		p.Compat == nil && len(p.ModelOverrides) == 0 && p.APIKey == "" && p.OAuth == "" && p.AuthHeader == nil {
		return p, fmt.Errorf(`%s: set at least one of "baseUrl", "headers", "compat", "modelOverrides" or "models"`, path)
	}
	return p, nil
}

// thinkingLevels are the levels a person picks, lowest first.
var thinkingLevels = [...]string{"off", "minimal", "low", "medium", "high", "xhigh", "max"}

// ThinkingLevels returns the thinking levels --thinking accepts, lowest
// first.
func ThinkingLevels() []string { return append([]string(nil), thinkingLevels[:]...) }

// validThinkingLevel reports whether s is one of ThinkingLevels.
func validThinkingLevel(s string) bool {
	for _, l := range thinkingLevels {
		if l == s {
			return true
		}
	}
	return false
}

func parseModel(path string, raw json.RawMessage, override bool) (ModelConfig, error) {
	f, err := newFields(path, raw)
	if err != nil {
		return ModelConfig{}, err
	}
	mc := ModelConfig{
		Name:          f.str("name"),
		Reasoning:     f.boolean("reasoning"),
		ContextWindow: f.positive("contextWindow"),
		MaxTokens:     f.positive("maxTokens"),
		Headers:       f.strings("headers"),
		Compat:        f.object("compat"),
	}
	if override {
		for _, k := range []string{"id", "api", "baseUrl"} {
			if _, ok := f.m[k]; ok {
				return mc, fmt.Errorf("%s.%s: a model override cannot change %q; list the model under \"models\" instead", path, k, k)
			}
		}
	} else {
		mc.ID = f.str("id")
		mc.API = f.str("api")
		mc.BaseURL = f.str("baseUrl")
		if f.err == nil && strings.TrimSpace(mc.ID) == "" {
			return mc, fmt.Errorf("%s.id: every model needs an id", path)
		}
	}
	if raw, ok := f.m["input"]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &mc.Input) != nil {
			f.fail("input", `want a list of "text" and "image"`)
		}
		for _, in := range mc.Input {
			if in != "text" && in != "image" {
				f.fail("input", `want a list of "text" and "image", not %q`, in)
			}
		}
	}
	if tm := f.object("thinkingLevelMap"); tm != nil {
		mc.ThinkingLevelMap = map[string]*string{}
		for lvl, v := range tm {
			if !validThinkingLevel(lvl) {
				f.fail("thinkingLevelMap", "unknown level %q (levels: %s)", lvl, strings.Join(thinkingLevels[:], ", "))
				continue
			}
			if isNull(v) {
				mc.ThinkingLevelMap[lvl] = nil
				continue
			}
			var s string
			if json.Unmarshal(v, &s) != nil {
				f.fail("thinkingLevelMap", "level %q: want a string or null", lvl)
				continue
			}
			mc.ThinkingLevelMap[lvl] = &s
		}
	}
	mc.SamplingParams = f.object("samplingParams")
	if by := f.object("samplingParamsByThinkingLevel"); by != nil {
		mc.SamplingByLevel = map[string]map[string]json.RawMessage{}
		for lvl, v := range by {
			if !validThinkingLevel(lvl) {
				f.fail("samplingParamsByThinkingLevel", "unknown level %q (levels: %s)", lvl, strings.Join(thinkingLevels[:], ", "))
				continue
			}
			var params map[string]json.RawMessage
			if json.Unmarshal(v, &params) != nil || params == nil {
				f.fail("samplingParamsByThinkingLevel", "level %q: want an object", lvl)
				continue
			}
			mc.SamplingByLevel[lvl] = params
		}
	}
	costRaw, cacheRaw := f.object("cost"), f.object("promptCache")
	// Read and checked, with no effect in pi.
	f.object("inputLimits")
	if f.err != nil {
		return mc, f.err
	}
	if mc.Cost, err = parseCost(path+".cost", costRaw, override); err != nil {
		return mc, err
	}
	if mc.PromptCache, err = parsePromptCache(path+".promptCache", cacheRaw); err != nil {
		return mc, err
	}
	return mc, checkCompat(path+".compat", mc.Compat)
}

// checkCompat checks the types of the compat fields pi acts on; the others
// are kept and ignored, as the other harness ignores fields its API does not
// read.
func checkCompat(path string, c map[string]json.RawMessage) error {
	if c == nil {
		return nil
	}
	f := &fields{path: path, m: c}
	for _, k := range []string{"supportsStore", "supportsDeveloperRole", "supportsReasoningEffort", "supportsUsageInStreaming",
		"supportsMidConvoSystemMessages", "supportsThinkingTokenBudget", "forceAdaptiveThinking", "supportsMaxOutputTokens", "supportsTemperature"} {
		f.boolean(k)
	}
	if v := f.str("maxTokensField"); v != "" && v != "max_tokens" && v != "max_completion_tokens" {
		f.fail("maxTokensField", `want "max_completion_tokens" or "max_tokens", not %q`, v)
	}
	if v := f.str("thinkingFormat"); v != "" {
		switch v {
		case "openai", "openrouter", "deepseek", "together", "baseten", "zai", "qwen", "chat-template", "qwen-chat-template", "string-thinking", "ant-ling":
		default:
			f.fail("thinkingFormat", "unknown format %q", v)
		}
	}
	if v := f.str("thinkingTokenBudgetField"); v != "" && v != "thinking_token_budget" && v != "thinking_budget" && v != "thinking_budget_tokens" {
		f.fail("thinkingTokenBudgetField", "unknown field %q", v)
	}
	f.object("openRouterRouting")
	return f.err
}

// ModelInfo describes one model pi can route to, as listed by --list-models.
type ModelInfo struct {
	Provider      string
	ID            string
	Name          string
	API           string
	ContextWindow int
	MaxTokens     int
	Reasoning     bool
	Images        bool
	// BaseURL is where requests go; Cost the model's prices (nil: none
	// configured), as the RPC model object shows them.
	BaseURL string
	Cost    *ModelCost
	// Listed is false for a model that is only a built-in provider's
	// fallback (any id goes); Usable says whether its key resolves.
	Listed bool
	Usable bool
}

// Specs lists the configured models as "provider/id", in file order.
func (m *Models) Specs() []string {
	var out []string
	for _, p := range m.Providers {
		for _, mc := range p.Models {
			out = append(out, p.Name+"/"+mc.ID)
		}
	}
	return out
}

// All lists every model models.json defines, in file order, with the
// values that apply after provider defaults and modelOverrides.
func (m *Models) All() []ModelInfo {
	var out []ModelInfo
	for _, p := range m.Providers {
		usable := m.hasKey(p.Name)
		for _, mc := range p.Models {
			eff := m.effective(p, mc)
			out = append(out, ModelInfo{
				Provider: p.Name, ID: mc.ID, Name: eff.Name, API: firstNonEmpty(eff.API, m.providerAPI(p)),
				ContextWindow: eff.ContextWindow, MaxTokens: eff.MaxTokens,
				Reasoning: eff.Reasoning != nil && *eff.Reasoning, Images: contains(eff.Input, "image"),
				BaseURL: m.baseURL(p, mc), Cost: eff.Cost.model(),
				Listed: true, Usable: usable,
			})
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// providerNamed returns the provider's configuration: the models.json entry
// (if any) and whether the name is known at all.
func (m *Models) providerNamed(name string) (ProviderConfig, bool) {
	for _, p := range m.Providers {
		if p.Name == name {
			return p, true
		}
	}
	if _, ok := builtins()[name]; ok {
		return ProviderConfig{Name: name}, true
	}
	return ProviderConfig{}, false
}

// baseURL is where a model's requests go, as route works it out (the
// model's, the provider's, the built-in provider's).
func (m *Models) baseURL(p ProviderConfig, mc ModelConfig) string {
	return firstNonEmpty(mc.BaseURL, p.BaseURL, builtins()[p.Name].baseURL)
}

func (m *Models) providerAPI(p ProviderConfig) string {
	if p.API != "" {
		return p.API
	}
	return builtins()[p.Name].api
}

// StoredKey is a provider's credential from auth.json: an API key (a
// literal, "$VAR" or "!command") or an OAuth access token (OAuth: sent as
// a bearer token with the provider's OAuth headers).
type StoredKey struct {
	Key   string
	OAuth bool
}

// hasKey reports whether the provider's key resolves without running
// anything (commands count as configured, as in the other harness).
func (m *Models) hasKey(provider string) bool {
	if k, ok := m.Stored[provider]; ok && k.Key != "" {
		return true
	}
	if provider == "anthropic" && (m.values.env("ANTHROPIC_AUTH_TOKEN") != "" || m.values.env("ANTHROPIC_OAUTH_TOKEN") != "") {
		return true
	}
	p, _ := m.providerNamed(provider)
	raw := p.APIKey
	if raw == "" {
		b, ok := builtins()[provider]
		if !ok {
			// A custom provider without a key needs none (local servers).
			return true
		}
		raw = "$" + b.keyEnv
	}
	if strings.HasPrefix(raw, "!") {
		return true
	}
	_, ok, _ := (&valueResolver{env: m.values.env, commands: map[string]string{}}).resolve(raw)
	return ok
}

// effective applies the provider's modelOverrides entry for mc.ID over mc,
// and fills the documented defaults.
func (m *Models) effective(p ProviderConfig, mc ModelConfig) ModelConfig {
	if ov, ok := p.ModelOverrides[mc.ID]; ok {
		mc = overlay(mc, ov)
	}
	if mc.Name == "" {
		mc.Name = mc.ID
	}
	if mc.ContextWindow == 0 {
		mc.ContextWindow = defaultContextWindow
	}
	if mc.MaxTokens == 0 {
		mc.MaxTokens = defaultMaxTokens
	}
	return mc
}

// overlay applies an override: object fields merge key by key, others
// replace.
func overlay(base, ov ModelConfig) ModelConfig {
	if ov.Name != "" {
		base.Name = ov.Name
	}
	if ov.Reasoning != nil {
		base.Reasoning = ov.Reasoning
	}
	if ov.ThinkingLevelMap != nil {
		base.ThinkingLevelMap = ov.ThinkingLevelMap
	}
	if ov.Input != nil {
		base.Input = ov.Input
	}
	if ov.ContextWindow != 0 {
		base.ContextWindow = ov.ContextWindow
	}
	if ov.MaxTokens != 0 {
		base.MaxTokens = ov.MaxTokens
	}
	base.SamplingParams = mergeRaw(base.SamplingParams, ov.SamplingParams)
	if ov.SamplingByLevel != nil {
		merged := map[string]map[string]json.RawMessage{}
		for l, v := range base.SamplingByLevel {
			merged[l] = v
		}
		for l, v := range ov.SamplingByLevel {
			merged[l] = mergeRaw(merged[l], v)
		}
		base.SamplingByLevel = merged
	}
	if ov.Headers != nil {
		h := map[string]string{}
		for k, v := range ov.Headers {
			h[k] = v
		}
		for k, v := range base.Headers {
			h[k] = v // the model's own headers win over the override's
		}
		base.Headers = h
	}
	base.Compat = mergeRaw(base.Compat, ov.Compat)
	base.Cost = base.Cost.overlay(ov.Cost)
	base.PromptCache = overlayCache(base.PromptCache, ov.PromptCache)
	return base
}

func mergeRaw(a, b map[string]json.RawMessage) map[string]json.RawMessage {
	if a == nil && b == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// Resolve turns a model spec into a Route without fuzzy matching: see
// [Models.Select] for the full --provider/--model/--thinking rules.
//
//   - "provider/id": that provider's model id (a model it does not list is
//     taken as a custom id of that provider).
//   - "id": the one configured model with that id; an id listed by several
//     providers is an error naming them.
//   - "": the first model of models.json.
func (m *Models) Resolve(spec string) (Route, error) {
	sel, err := m.Select(Selection{Model: spec, Exact: true})
	if err != nil {
		return Route{}, err
	}
	return sel.Route, nil
}

// route builds the Route of model mc of provider p at a thinking level,
// with apiKey (from --api-key) replacing the configured key when set.
func (m *Models) route(p ProviderConfig, mc ModelConfig, level, apiKey string) (Route, error) {
	b, builtin := builtins()[p.Name]
	eff := m.effective(p, mc)
	label := p.Name + "/" + mc.ID
	r := Route{
		Provider:       p.Name,
		ModelID:        mc.ID,
		BaseURL:        m.baseURL(p, mc),
		API:            firstNonEmpty(mc.API, p.API, b.api),
		Name:           eff.Name,
		ContextWindow:  eff.ContextWindow,
		MaxTokens:      eff.MaxTokens,
		Reasoning:      eff.Reasoning != nil && *eff.Reasoning,
		ThinkingLevels: eff.ThinkingLevelMap,
		// Like the established harness: a model takes images only when its
		// input lists "image" (the default input is text only).
		NoImages: !contains(eff.Input, "image"),
	}
	if builtin && p.Name == "openrouter" && mc.API == "" && p.API == "" && openRouterAnthropic(mc.ID) {
		// OpenRouter's Anthropic models speak the Messages API at its
		// /api endpoint in the established harness; a configured base URL
		// still wins.
		r.API = APIAnthropicMessages
		r.BaseURL = firstNonEmpty(mc.BaseURL, p.BaseURL, openRouterAnthropicBaseURL)
	}
	if r.API == "" {
		return Route{}, fmt.Errorf("model %q: providers.%s.api is not set (want one of %s)", label, p.Name, strings.Join(supportedAPIs(), ", "))
	}
	if !apiSupported(r.API) {
		where := "providers." + p.Name + ".api"
		if mc.API != "" {
			where = "providers." + p.Name + ".models[id=" + mc.ID + "].api"
		}
		return Route{}, fmt.Errorf("model %q: %s %q is an API pi cannot speak (supported: %s)", label, where, r.API, strings.Join(supportedAPIs(), ", "))
	}
	compat := mergeRaw(p.Compat, eff.Compat)
	if p.Name == "azure" {
		if err := m.azure(&r, mc); err != nil {
			return Route{}, fmt.Errorf("model %q: %w", label, err)
		}
	}
	if r.BaseURL == "" {
		return Route{}, fmt.Errorf("model %q: providers.%s.baseUrl is not set", label, p.Name)
	}
	c, err := resolveCompat(r, compat)
	if err != nil {
		return Route{}, fmt.Errorf("model %q: %w", label, err)
	}
	r.Compat = &c
	r.MaxTokensField = c.MaxTokensField
	r.SystemInHistory = c.MidConvoSystemMessages
	if level != "" && !validThinkingLevel(level) {
		return Route{}, fmt.Errorf("model %q: unknown thinking level %q (levels: %s)", label, level, strings.Join(thinkingLevels[:], ", "))
	}
	r.Thinking = r.clampThinking(level)
	r.SamplingParams = samplingFor(r.API, eff, r.Thinking)
	r.Cost, r.PromptCache = eff.Cost.model(), eff.PromptCache

	// Key and headers.
	cred := m.credential(p, apiKey)
	r.APIKey, r.Bearer, r.OAuth, r.KeyProblem = cred.Key, cred.Bearer, cred.OAuth, cred.Problem
	// The model's headers replace the provider's of the same name before
	// anything is resolved, so a replaced command never runs.
	raw := map[string]string{}
	for _, hs := range []map[string]string{p.Headers, eff.Headers} {
		for k, v := range hs {
			raw[k] = v
		}
	}
	headers := map[string]string{}
	for _, k := range sortedKeys(raw) {
		rv, ok, why := m.values.resolve(raw[k])
		if !ok {
			return Route{}, fmt.Errorf("model %q: header %q: %s", label, k, why)
		}
		headers[k] = rv
	}
	if p.AuthHeader != nil && *p.AuthHeader {
		if r.APIKey == "" {
			return Route{}, fmt.Errorf("model %q: providers.%s.authHeader is set but there is no API key to send (%s)", label, p.Name, firstNonEmpty(r.KeyProblem, "no apiKey configured"))
		}
		headers["Authorization"] = "Bearer " + r.APIKey
		r.BearerFromConfig = true
	}
	if len(headers) > 0 {
		r.Headers = headers
	}
	return r, nil
}

// azure applies the Azure OpenAI variables: AZURE_OPENAI_BASE_URL or
// AZURE_OPENAI_RESOURCE_NAME (which win over a configured baseUrl),
// AZURE_OPENAI_DEPLOYMENT_NAME_MAP (model id → deployment name) and
// AZURE_OPENAI_API_VERSION (default "v1"). A resource root URL is completed
// with the OpenAI API path.
func (m *Models) azure(r *Route, mc ModelConfig) error {
	env := m.values.env
	if u := strings.TrimSpace(env("AZURE_OPENAI_BASE_URL")); u != "" {
		r.BaseURL = u
	} else if res := env("AZURE_OPENAI_RESOURCE_NAME"); res != "" {
		r.BaseURL = "https://" + res + ".openai.azure.com/openai/v1"
	}
	if r.BaseURL == "" {
		return errors.New("set AZURE_OPENAI_BASE_URL or AZURE_OPENAI_RESOURCE_NAME (or providers.azure.baseUrl)")
	}
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(r.BaseURL), "/"))
	if err != nil || u.Host == "" {
		return fmt.Errorf("invalid Azure OpenAI base URL %q", r.BaseURL)
	}
	host := u.Hostname()
	if strings.HasSuffix(host, ".openai.azure.com") || strings.HasSuffix(host, ".cognitiveservices.azure.com") || strings.HasSuffix(host, ".ai.azure.com") {
		switch strings.TrimRight(u.Path, "/") {
		case "", "/openai", "/openai/v1/responses":
			u.Path, u.RawQuery = "/openai/v1", ""
		}
	}
	r.BaseURL = strings.TrimRight(u.String(), "/")
	if dm := env("AZURE_OPENAI_DEPLOYMENT_NAME_MAP"); dm != "" {
		for _, pair := range strings.Split(dm, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
			if ok && strings.TrimSpace(k) == mc.ID && strings.TrimSpace(v) != "" {
				r.ModelID = strings.TrimSpace(v)
			}
		}
	}
	r.APIVersion = firstNonEmpty(env("AZURE_OPENAI_API_VERSION"), "v1")
	r.AzureKeyHeader = r.API == APIAzureOpenAIResponses
	return nil
}

// ErrNoModel is the error of a selection with no model to choose from:
// nothing in models.json and no model named. The interactive session
// opens without a model on it, to lead to /login.
var ErrNoModel = errors.New("no model configured")

func (m *Models) nothingConfigured() error {
	where := "models.json in the agent directory"
	if m.Path != "" {
		where = m.Path
	}
	return fmt.Errorf("%w: list a provider and its models in %s, or pass --model openai/<id> or --model anthropic/<id>; --dry-run prints the request without sending it", ErrNoModel, where)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// stripJSONComments blanks what the other harness strips before parsing:
// // line comments and trailing commas before } or ], outside strings. It
// keeps every other byte in place so JSON errors point at the right line.
func stripJSONComments(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	lastComma := -1 // index of a comma not yet followed by anything but space
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			lastComma = -1
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastComma = -1
		}
	}
	return out
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Credential is what a provider's requests authenticate with: Key (empty
// when none is configured), sent as a bearer token when Bearer is set;
// OAuth marks an OAuth access token. Problem says why a configured key
// could not be had (a variable not set, a command that failed).
type Credential struct {
	Key           string
	Bearer, OAuth bool
	Problem       string
	// Unset is set with Problem when the key names environment variables
	// that are not set (rather than a command that failed).
	Unset bool
}

// ProviderCredential resolves a provider's credential as a request of it
// would (--api-key aside): auth.json, then the Anthropic token variables,
// then models.json's apiKey or the built-in key variable. ok is false for
// a provider neither models.json nor the built-ins know.
func (m *Models) ProviderCredential(name string) (c Credential, ok bool) {
	p, ok := m.providerNamed(name)
	if !ok {
		return Credential{}, false
	}
	return m.credential(p, ""), true
}

// credential is ProviderCredential for a provider's configuration, with
// apiKey (from --api-key) first when set.
func (m *Models) credential(p ProviderConfig, apiKey string) Credential {
	var c Credential
	b, builtin := builtins()[p.Name]
	rawKey := p.APIKey
	if rawKey == "" && builtin {
		rawKey = "$" + b.keyEnv
	}
	stored, isStored := m.Stored[p.Name]
	switch {
	case apiKey != "":
		c.Key = apiKey
	case isStored && stored.OAuth:
		c.Key, c.Bearer, c.OAuth = stored.Key, true, true
	case isStored && stored.Key != "":
		key, ok, why := m.values.resolve(stored.Key)
		if ok {
			c.Key = key
		} else {
			c.Problem = fmt.Sprintf("the key of provider %q in auth.json is not available: %s", p.Name, why)
			c.Unset = !strings.HasPrefix(stored.Key, "!")
		}
	case p.Name == "anthropic" && p.APIKey == "" && m.values.env("ANTHROPIC_AUTH_TOKEN") != "":
		// A bearer token for a gateway in front of Anthropic.
		c.Key, c.Bearer = m.values.env("ANTHROPIC_AUTH_TOKEN"), true
	case p.Name == "anthropic" && p.APIKey == "" && m.values.env("ANTHROPIC_OAUTH_TOKEN") != "":
		c.Key, c.Bearer, c.OAuth = m.values.env("ANTHROPIC_OAUTH_TOKEN"), true, true
	case rawKey != "":
		key, ok, why := m.values.resolve(rawKey)
		if ok {
			c.Key = key
		} else {
			c.Problem = fmt.Sprintf("the API key of provider %q is not available: %s", p.Name, why)
			c.Unset = !strings.HasPrefix(rawKey, "!")
		}
	}
	return c
}
