package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Wire formats a Route can speak.
const (
	// APIOpenAICompletions is OpenAI's chat completions API and the many
	// servers that copy it (vLLM, Ollama, llama.cpp, OpenRouter, ...).
	APIOpenAICompletions = "openai-completions"
	// APIAnthropicMessages is Anthropic's messages API.
	APIAnthropicMessages = "anthropic-messages"
)

// anthropicVersion is the value sent in the anthropic-version header.
const anthropicVersion = "2023-06-01"

// defaultAnthropicMaxTokens is the max_tokens sent to Anthropic when neither
// the Request nor the Route sets one; that API requires the field.
const defaultAnthropicMaxTokens = DefaultMaxTokens

// Route is one configured model: where to send a request and how to shape it.
//
// Provider is the configuration name ("openai", "anthropic", "ollama", ...)
// and only labels errors. ModelID is the id sent on the wire. BaseURL is the
// API root; see Endpoint for how the path is joined. API is
// APIOpenAICompletions or APIAnthropicMessages. APIKey may be empty, in
// which case no auth header is sent (local servers often need none).
// Headers are extra request headers; they are applied after the built-in ones
// and so may override them.
//
// SystemInHistory says whether the model accepts system messages in the
// middle of a conversation, so that a prompt update can be appended without
// disturbing the cached prefix. Many OpenAI-compatible servers (local ones
// especially) reject or mishandle them, so a route from models.json claims
// it only when compat.supportsMidConvoSystemMessages says so, as the
// TypeScript harness does; otherwise the session updates the leading system
// message instead. Anthropic messages takes a single top-level "system", so
// there it never applies (see BuildAnthropicBody). The session layer uses
// AcceptsSystemInHistory to pick its projection.
//
// Name, ContextWindow and MaxTokens are informational values from
// models.json; MaxTokens is also the reply cap when the Request sets none.
// MaxTokensField names the OpenAI body field for the cap
// ("max_completion_tokens" when empty, or "max_tokens" for older servers).
//
// The fields after MaxTokensField come from models.json through
// [Models.Select]; a Route built by hand may leave them zero. Compat is what
// the server accepts; Reasoning says the model can think, Thinking is the
// chosen level ("" for off, already clamped to what the model supports) and
// ThinkingLevels its thinkingLevelMap. SamplingParams are merged into
// OpenAI-style bodies. KeyProblem explains a key that could not be resolved
// (the request then goes without one). BearerFromConfig says authHeader put
// the key in Headers; AzureKeyHeader sends it as "api-key"; APIVersion is
// Azure's api-version query value.
type Route struct {
	Provider        string
	ModelID         string
	BaseURL         string
	API             string
	APIKey          string
	Headers         map[string]string
	SystemInHistory bool

	Name           string
	ContextWindow  int
	MaxTokens      int
	MaxTokensField string

	Compat         *Compat
	Reasoning      bool
	Thinking       string
	ThinkingLevels map[string]*string
	// ThinkingBudgets replaces the built-in token budgets of the levels
	// minimal, low, medium and high (settings thinkingBudgets).
	ThinkingBudgets  map[string]int
	SamplingParams   map[string]json.RawMessage
	KeyProblem       string
	BearerFromConfig bool
	// NoImages: the model's input does not list "image" (or images are
	// turned off, BlockImages): image parts are replaced by a note.
	NoImages, BlockImages bool
	// Bearer sends the key as "Authorization: Bearer" on the Anthropic
	// API (ANTHROPIC_AUTH_TOKEN, OAuth tokens) instead of x-api-key;
	// OAuth adds the headers an OAuth token needs there.
	Bearer, OAuth  bool
	AzureKeyHeader bool
	APIVersion     string
	// Cost prices the model's tokens (models.json "cost"; nil: unknown,
	// free as far as pi can tell); PromptCache is how long its provider
	// keeps a prompt cache entry ("promptCache"; nil: unknown).
	Cost        *ModelCost
	PromptCache *PromptCache
}

// AcceptsSystemInHistory reports whether system messages may appear after
// the first message of a request on this route. It is false for any API
// other than the OpenAI ones, whatever SystemInHistory says, because the
// other body builders collapse system messages anyway.
func (r Route) AcceptsSystemInHistory() bool {
	return r.SystemInHistory && (r.API == APIOpenAICompletions || isResponsesAPI(r.API))
}

// label names the route in error messages.
func (r Route) label() string {
	switch {
	case r.Provider != "":
		return r.Provider
	case r.API == APIAnthropicMessages:
		return "anthropic"
	case r.API == APIOpenAICompletions:
		return "openai"
	}
	return "provider"
}

// Endpoint returns the URL a request on this route is POSTed to.
//
// For APIOpenAICompletions it is BaseURL + "/chat/completions"; the base
// usually ends in "/v1" (https://api.openai.com/v1). For APIAnthropicMessages
// it is BaseURL + "/v1/messages?beta=true" (base https://api.anthropic.com); a
// base that already ends in "/v1" gets only "/messages". Trailing slashes on the base
// are ignored and a query string on it is kept. It fails on an unknown API or
// a base that is not an absolute http(s) URL.
func (r Route) Endpoint() (string, error) {
	suffix, err := r.pathSuffix()
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(r.BaseURL) == "" {
		return "", fmt.Errorf("%s: no base URL configured", r.label())
	}
	u, err := url.Parse(strings.TrimSpace(r.BaseURL))
	if err != nil {
		return "", fmt.Errorf("%s: invalid base URL %q: %v", r.label(), r.BaseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s: base URL %q must be an absolute http or https URL", r.label(), r.BaseURL)
	}
	base := strings.TrimRight(u.Path, "/")
	if r.API == APIAnthropicMessages {
		if strings.HasSuffix(base, "/v1") {
			suffix = "/messages"
		}
		// The established harness sends every Messages request through
		// its SDK's beta client, which marks it with this query; a proxy
		// that routes or logs by URL sees the same from both.
		q := u.Query()
		q.Set("beta", "true")
		u.RawQuery = q.Encode()
	}
	if r.API == APIGoogleGenerativeAI {
		model := r.ModelID
		if model == "" {
			return "", fmt.Errorf("%s: no model id", r.label())
		}
		suffix = "/models/" + url.PathEscape(model) + ":streamGenerateContent"
		q := u.Query()
		q.Set("alt", "sse")
		u.RawQuery = q.Encode()
	}
	if r.API == APIAzureOpenAIResponses && r.APIVersion != "" {
		q := u.Query()
		q.Set("api-version", r.APIVersion)
		u.RawQuery = q.Encode()
	}
	u.Path = base + suffix
	u.RawPath = ""
	u.Fragment = ""
	return u.String(), nil
}

func (r Route) pathSuffix() (string, error) {
	switch r.API {
	case APIOpenAICompletions:
		return "/chat/completions", nil
	case APIAnthropicMessages:
		return "/v1/messages", nil
	case APIOpenAIResponses, APIAzureOpenAIResponses:
		return "/responses", nil
	case APIGoogleGenerativeAI:
		return "/models", nil // completed in Endpoint with the model
	case "":
		return "", fmt.Errorf("%s: route has no api (want one of %s)", r.label(), strings.Join(supportedAPIs(), ", "))
	}
	return "", fmt.Errorf("%s: unsupported api %q (want one of %s)", r.label(), r.API, strings.Join(supportedAPIs(), ", "))
}

// header builds the request headers, secrets included.
func (r Route) header() http.Header {
	h := make(http.Header)
	h.Set("Content-Type", "application/json")
	// The Accept header the established harness's SDKs send (they stream
	// whatever it says, as the body asks for a stream): application/json
	// from the OpenAI and Anthropic clients, */* from Google's.
	if r.API == APIGoogleGenerativeAI {
		h.Set("Accept", "*/*")
	} else {
		h.Set("Accept", "application/json")
	}
	switch r.API {
	case APIOpenAICompletions, APIOpenAIResponses:
		if r.APIKey != "" {
			h.Set("Authorization", "Bearer "+r.APIKey)
		}
	case APIAzureOpenAIResponses:
		if r.APIKey != "" {
			h.Set("Api-Key", r.APIKey)
		}
	case APIGoogleGenerativeAI:
		if r.APIKey != "" {
			h.Set("X-Goog-Api-Key", r.APIKey)
		}
	case APIAnthropicMessages:
		switch {
		case r.APIKey != "" && r.Bearer:
			h.Set("Authorization", "Bearer "+r.APIKey)
		case r.APIKey != "":
			h.Set("X-Api-Key", r.APIKey)
		}
		h.Set("Anthropic-Version", anthropicVersion)
		h.Set("Anthropic-Dangerous-Direct-Browser-Access", "true")
		var betas []string
		if r.OAuth {
			// What an OAuth token needs, in the other harness's order.
			betas = append(betas, "claude-code-20250219", "oauth-2025-04-20")
			h.Set("X-App", "cli")
		}
		if r.Reasoning && r.Thinking != "" && (r.Compat == nil || !r.Compat.ForceAdaptiveThinking) {
			// Thinking between tool calls, as the other harness asks for it;
			// a configured anthropic-beta header replaces it below.
			betas = append(betas, "interleaved-thinking-2025-05-14")
		}
		if len(betas) > 0 {
			h.Set("Anthropic-Beta", strings.Join(betas, ","))
		}
	}
	for k, v := range r.Headers {
		h.Set(k, v)
	}
	return h
}

// affinity adds the session affinity headers the established harness
// sends with the session id (see [Compat.SessionAffinity]); configured
// headers of the same name win.
func (r Route) affinity(h http.Header, sessionID string) {
	if sessionID == "" || r.Compat == nil {
		return
	}
	switch r.API {
	case APIOpenAIResponses:
		// Not Azure: the established harness's Azure client sends the
		// session only as prompt_cache_key.
	case APIOpenAICompletions:
		if !r.Compat.SendSessionAffinity {
			return
		}
	case APIAnthropicMessages:
		// Only where the compat says so (OpenRouter by default), with
		// the Anthropic client's names.
		if !r.Compat.SendSessionAffinity {
			return
		}
		if r.Compat.SessionAffinity == "openrouter" {
			if !headerSetFold(r.Headers, "X-Session-Id") {
				h.Set("X-Session-Id", sessionID)
			}
		} else if !headerSetFold(r.Headers, "X-Session-Affinity") {
			h.Set("X-Session-Affinity", sessionID)
		}
		return
	default:
		return
	}
	set := func(k string) {
		if !headerSetFold(r.Headers, k) {
			h.Set(k, sessionID)
		}
	}
	switch r.Compat.SessionAffinity {
	case "openrouter":
		set("X-Session-Id")
	case "openai", "openai-nosession":
		if r.Compat.SessionAffinity == "openai" {
			if r.API == APIOpenAICompletions {
				set("Session_id")
			} else {
				set("Session-Id")
			}
		}
		set("X-Client-Request-Id")
		if r.API == APIOpenAICompletions {
			set("X-Session-Affinity")
		}
	}
}
