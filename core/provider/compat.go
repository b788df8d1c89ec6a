package provider

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Compat is what a route's server accepts, resolved from models.json's
// "compat" (the model's fields over the provider's) over what the
// TypeScript harness detects from the provider name and base URL.
type Compat struct {
	// MaxTokensField names the OpenAI chat completions field for the output
	// cap: "max_completion_tokens" or "max_tokens".
	MaxTokensField string
	// UsageInStreaming: stream_options.include_usage may be sent.
	UsageInStreaming bool
	// DeveloperRole: system messages of a reasoning model go out with the
	// "developer" role.
	DeveloperRole bool
	// ReasoningEffort: the server takes a reasoning effort field.
	ReasoningEffort bool
	// Store: the server takes "store": false.
	Store bool
	// MidConvoSystemMessages: the exact model accepts system messages after
	// the conversation has started. Nothing claims it unless models.json
	// does, as in the other harness.
	MidConvoSystemMessages bool
	// ThinkingFormat is how thinking is asked for on OpenAI-compatible
	// servers ("openai", "openrouter", "deepseek", "zai", "qwen", ...).
	ThinkingFormat string
	// ThinkingBudgetField, when set, caps reasoning tokens with that
	// top-level field.
	ThinkingBudgetField string
	// ForceAdaptiveThinking: Anthropic's adaptive thinking with an effort
	// instead of a token budget.
	ForceAdaptiveThinking bool
	// MaxOutputTokens: the Responses API's max_output_tokens may be sent.
	MaxOutputTokens bool
	// SessionAffinity is how the session id goes into headers, so a
	// provider keeps the prompt cache warm: "openai" (session-id and
	// x-client-request-id), "openai-nosession" (x-client-request-id) or
	// "openrouter" (x-session-id); compat.sessionAffinityFormat, else
	// detected. Chat completions send them only with SendSessionAffinity
	// (compat.sendSessionAffinityHeaders; detected: OpenRouter only); the
	// Responses API always does.
	SessionAffinity     string
	SendSessionAffinity bool
	// PromptCacheKeyMode "disabled" (compat.promptCacheKeyMode) keeps
	// prompt_cache_key out of Responses API requests.
	PromptCacheKeyMode string
	// OpenRouterRouting is sent as "provider" on OpenRouter.
	OpenRouterRouting json.RawMessage
}

// Wire formats a Route can speak, besides the two in route.go.
const (
	// APIOpenAIResponses is OpenAI's Responses API.
	APIOpenAIResponses = "openai-responses"
	// APIAzureOpenAIResponses is the Responses API as Azure OpenAI serves
	// it (key in an "api-key" header).
	APIAzureOpenAIResponses = "azure-openai-responses"
	// APIGoogleGenerativeAI is Google's Generative Language API (Gemini).
	APIGoogleGenerativeAI = "google-generative-ai"
)

// supportedAPIs lists the "api" values pi can speak.
func supportedAPIs() []string {
	return []string{APIOpenAICompletions, APIOpenAIResponses, APIAzureOpenAIResponses, APIAnthropicMessages, APIGoogleGenerativeAI}
}

func apiSupported(api string) bool {
	for _, a := range supportedAPIs() {
		if a == api {
			return true
		}
	}
	return false
}

func isResponsesAPI(api string) bool {
	return api == APIOpenAIResponses || api == APIAzureOpenAIResponses
}

// detectCompat is what the other harness assumes of a server it knows only
// by provider name and base URL.
func detectCompat(r Route) Compat {
	url := r.BaseURL
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(url, x) {
				return true
			}
		}
		return false
	}
	isZai := r.Provider == "zai" || has("api.z.ai", "open.bigmodel.cn")
	isTogether := r.Provider == "together" || has("api.together.ai", "api.together.xyz")
	isMoonshot := r.Provider == "moonshotai" || has("api.moonshot.")
	isOpenRouter := r.Provider == "openrouter" || has("openrouter.ai")
	isCFWorkers := has("api.cloudflare.com")
	isCFGateway := has("gateway.ai.cloudflare.com")
	isNvidia := r.Provider == "nvidia" || has("integrate.api.nvidia.com")
	isAntLing := has("api.ant-ling.com")
	isCerebras := r.Provider == "cerebras" || has("cerebras.ai")
	isDeepSeek := r.Provider == "deepseek" || strings.Contains(strings.ToLower(url), "deepseek.com")
	isGrok := r.Provider == "xai" || has("api.x.ai")
	isOpenAI := r.Provider == "openai" || has("api.openai.com")
	nonStandard := isNvidia || isCerebras || isGrok || isTogether || has("chutes.ai") || isDeepSeek || isZai ||
		isMoonshot || has("opencode.ai") || isCFWorkers || isCFGateway || isAntLing
	useMaxTokens := has("chutes.ai") || isDeepSeek || isMoonshot || isCFGateway || isTogether || isNvidia || isAntLing || isZai
	c := Compat{
		MaxTokensField:   "max_completion_tokens",
		UsageInStreaming: true,
		DeveloperRole:    isOpenAI,
		ReasoningEffort:  !isGrok && !isZai && !isMoonshot && !isTogether && !isCFGateway && !isNvidia && !isAntLing,
		Store:            !nonStandard,
		ThinkingFormat:   "openai",
		MaxOutputTokens:  true,
		SessionAffinity:  "openai",
		// As the established harness detects it.
		SendSessionAffinity: isOpenRouter,
	}
	if isOpenRouter {
		c.SessionAffinity = "openrouter"
	}
	if useMaxTokens {
		c.MaxTokensField = "max_tokens"
	}
	switch {
	case isDeepSeek:
		c.ThinkingFormat = "deepseek"
	case isZai:
		c.ThinkingFormat = "zai"
	case isTogether:
		c.ThinkingFormat = "together"
	case isAntLing:
		c.ThinkingFormat = "ant-ling"
	case isOpenRouter:
		c.ThinkingFormat = "openrouter"
	}
	if isResponsesAPI(r.API) {
		c.DeveloperRole = true // the Responses API's default
	}
	return c
}

// resolveCompat applies models.json's compat over the detected values.
func resolveCompat(r Route, raw map[string]json.RawMessage) (Compat, error) {
	c := detectCompat(r)
	boolField := func(key string, dst *bool) {
		if v, ok := raw[key]; ok && !isNull(v) {
			_ = json.Unmarshal(v, dst) // types checked when parsed
		}
	}
	strField := func(key string, dst *string) {
		if v, ok := raw[key]; ok && !isNull(v) {
			_ = json.Unmarshal(v, dst)
		}
	}
	strField("maxTokensField", &c.MaxTokensField)
	boolField("supportsUsageInStreaming", &c.UsageInStreaming)
	boolField("supportsDeveloperRole", &c.DeveloperRole)
	boolField("supportsReasoningEffort", &c.ReasoningEffort)
	boolField("supportsStore", &c.Store)
	boolField("supportsMidConvoSystemMessages", &c.MidConvoSystemMessages)
	boolField("forceAdaptiveThinking", &c.ForceAdaptiveThinking)
	boolField("supportsMaxOutputTokens", &c.MaxOutputTokens)
	strField("thinkingFormat", &c.ThinkingFormat)
	strField("sessionAffinityFormat", &c.SessionAffinity)
	strField("promptCacheKeyMode", &c.PromptCacheKeyMode)
	boolField("sendSessionAffinityHeaders", &c.SendSessionAffinity)
	strField("thinkingTokenBudgetField", &c.ThinkingBudgetField)
	if c.ThinkingBudgetField == "" {
		var on bool
		boolField("supportsThinkingTokenBudget", &on)
		if on {
			c.ThinkingBudgetField = "thinking_token_budget"
		}
	}
	if v, ok := raw["openRouterRouting"]; ok && !isNull(v) {
		c.OpenRouterRouting = v
	}
	if r.API == APIOpenAICompletions && r.Reasoning {
		switch c.ThinkingFormat {
		case "chat-template", "baseten":
			return c, fmt.Errorf("compat.thinkingFormat %q is not supported by pi (it needs chat template arguments); pick another format or leave it out", c.ThinkingFormat)
		}
	}
	return c, nil
}

// clampThinking returns the level the model can take, as the other harness
// clamps it: "" (off) for a model without reasoning; else the requested
// level when supported, otherwise the nearest supported level above it,
// otherwise the nearest below. A level is supported unless thinkingLevelMap
// marks it null; "xhigh" and "max" only when the map names them.
func (r Route) clampThinking(level string) string {
	if level == "" || !r.Reasoning {
		return ""
	}
	supported := r.supportsLevel
	idx := -1
	for i, l := range thinkingLevels {
		if l == level {
			idx = i
		}
	}
	pick := func(l string) string {
		if l == "off" {
			return ""
		}
		return l
	}
	if idx < 0 {
		return ""
	}
	for i := idx; i < len(thinkingLevels); i++ {
		if supported(thinkingLevels[i]) {
			return pick(thinkingLevels[i])
		}
	}
	for i := idx - 1; i >= 0; i-- {
		if supported(thinkingLevels[i]) {
			return pick(thinkingLevels[i])
		}
	}
	return ""
}

// effortFor is the provider value sent for the route's thinking level: the
// thinkingLevelMap entry, else the level's own name. ok is false when the
// map marks it unsupported.
func (r Route) effortFor(level string) (string, bool) {
	v, mapped := r.ThinkingLevels[level]
	switch {
	case !mapped:
		return level, true
	case v == nil:
		return "", false
	}
	return *v, true
}

// offValue is the thinkingLevelMap's "off" entry: set reports a string value,
// null reports whether it is marked unsupported.
func (r Route) offValue() (val string, set, null bool) {
	v, mapped := r.ThinkingLevels["off"]
	if !mapped {
		return "", false, false
	}
	if v == nil {
		return "", false, true
	}
	return *v, true, false
}

// samplingFor merges samplingParams and the level's override (later keys
// win). They apply only to the OpenAI-style APIs, as in the other harness.
func samplingFor(api string, mc ModelConfig, level string) map[string]json.RawMessage {
	if api != APIOpenAICompletions && !isResponsesAPI(api) {
		return nil
	}
	if level == "" {
		level = "off"
	}
	return mergeRaw(mc.SamplingParams, mc.SamplingByLevel[level])
}

// thinkingBudget is the token budget of a budget-based thinking level
// (xhigh and max count as high): the route's own (settings thinkingBudgets)
// over the built-in ones.
func (r Route) thinkingBudget(level string) int {
	key := level
	if key == "xhigh" || key == "max" {
		key = "high"
	}
	if n, ok := r.ThinkingBudgets[key]; ok && level != "" {
		return n
	}
	switch level {
	case "minimal":
		return 1024
	case "low":
		return 2048
	case "medium":
		return 8192
	case "":
		return 0
	}
	return 16384
}

// minAnswerTokens is what a thinking budget always leaves for the answer.
const minAnswerTokens = 1024
