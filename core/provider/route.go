package provider

import (
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

// AnthropicVersion is the value sent in the anthropic-version header.
const AnthropicVersion = "2023-06-01"

// DefaultAnthropicMaxTokens is the max_tokens sent to Anthropic when neither
// the Request nor the Route sets one; that API requires the field.
const DefaultAnthropicMaxTokens = DefaultMaxTokens

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
// SystemInHistory says whether the API accepts system messages in the middle
// of a conversation. It is true for OpenAI chat completions, where a system
// message stays where it is in the history, so a prompt update can be
// appended without disturbing the cached prefix. It is false for Anthropic
// messages: that API takes a single top-level "system" string, so every
// system message of the history is collapsed into it (see
// BuildAnthropicBody). The session layer uses AcceptsSystemInHistory to pick
// its projection.
//
// Name, ContextWindow and MaxTokens are informational values from
// models.json; MaxTokens is also the reply cap when the Request sets none.
// MaxTokensField names the OpenAI body field for the cap
// ("max_completion_tokens" when empty, or "max_tokens" for older servers).
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
}

// AcceptsSystemInHistory reports whether system messages may appear after
// the first message of a request on this route. It is false for any API
// other than APIOpenAICompletions, whatever SystemInHistory says, because
// the Anthropic body builder collapses system messages anyway.
func (r Route) AcceptsSystemInHistory() bool {
	return r.SystemInHistory && r.API == APIOpenAICompletions
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
// it is BaseURL + "/v1/messages" (base https://api.anthropic.com); a base that
// already ends in "/v1" gets only "/messages". Trailing slashes on the base
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
	if r.API == APIAnthropicMessages && strings.HasSuffix(base, "/v1") {
		suffix = "/messages"
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
	case "":
		return "", fmt.Errorf("%s: route has no api (want %q or %q)", r.label(), APIOpenAICompletions, APIAnthropicMessages)
	}
	return "", fmt.Errorf("%s: unsupported api %q (want %q or %q)", r.label(), r.API, APIOpenAICompletions, APIAnthropicMessages)
}

// header builds the request headers, secrets included.
func (r Route) header() http.Header {
	h := make(http.Header)
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "text/event-stream")
	switch r.API {
	case APIOpenAICompletions:
		if r.APIKey != "" {
			h.Set("Authorization", "Bearer "+r.APIKey)
		}
	case APIAnthropicMessages:
		if r.APIKey != "" {
			h.Set("X-Api-Key", r.APIKey)
		}
		h.Set("Anthropic-Version", AnthropicVersion)
	}
	for k, v := range r.Headers {
		h.Set(k, v)
	}
	return h
}
