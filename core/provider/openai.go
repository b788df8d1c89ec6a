package provider

import (
	"encoding/json"
	"fmt"
	"strings"
)

// openAIBody is the chat completions request; field order is the wire order.
type openAIBody struct {
	Model               string          `json:"model"`
	Messages            []openAIMessage `json:"messages"`
	Stream              bool            `json:"stream,omitempty"`
	StreamOptions       *openAIStreamOp `json:"stream_options,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
}

type openAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openAIStreamOp struct {
	IncludeUsage bool `json:"include_usage"`
}

// BuildOpenAIBody returns the JSON body of an OpenAI chat completions
// request:
//
//	{"model":…,"messages":[{"role":…,"content":…},…],"stream":true,"stream_options":{"include_usage":true},"max_completion_tokens":N}
//
// Messages are sent one for one, in order: system messages stay where they
// are (this API accepts them mid-conversation) and empty ones are kept, so the
// body is a faithful image of the history the session projected. "stream"
// and "stream_options" appear only when req.Stream is set; the token cap only
// when req.MaxTokens > 0, under Route.MaxTokensField ("max_completion_tokens"
// by default, or "max_tokens"). The output is deterministic: equal inputs give
// equal bytes. It fails on an empty message list, an unknown role, a missing
// model id or an unknown MaxTokensField.
func BuildOpenAIBody(route Route, req Request) ([]byte, error) {
	model, err := modelFor(route, req)
	if err != nil {
		return nil, err
	}
	if len(req.Messages) == 0 {
		return nil, fmt.Errorf("%s: request has no messages", route.label())
	}
	if err := checkRoles(route.label(), req.Messages); err != nil {
		return nil, err
	}
	body := openAIBody{Model: model, Messages: make([]openAIMessage, len(req.Messages))}
	for i, m := range req.Messages {
		body.Messages[i] = openAIMessage{Role: m.Role, Content: m.Content}
	}
	if req.Stream {
		body.Stream = true
		body.StreamOptions = &openAIStreamOp{IncludeUsage: true}
	}
	if req.MaxTokens > 0 {
		switch route.MaxTokensField {
		case "", "max_completion_tokens":
			body.MaxCompletionTokens = req.MaxTokens
		case "max_tokens":
			body.MaxTokens = req.MaxTokens
		default:
			return nil, fmt.Errorf("%s: unknown maxTokensField %q (want max_completion_tokens or max_tokens)", route.label(), route.MaxTokensField)
		}
	}
	return encodeJSON(body)
}

// openAIChunk is one streamed chat completion chunk; only what we read.
type openAIChunk struct {
	Choices []struct {
		Delta struct {
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error *apiErrorBody `json:"error"`
}

// apiErrorBody is the error object both APIs use.
type apiErrorBody struct {
	Type    string `json:"type"`
	Code    any    `json:"code"`
	Message string `json:"message"`
}

func (e *apiErrorBody) String() string {
	var parts []string
	if e.Type != "" {
		parts = append(parts, e.Type)
	}
	if e.Code != nil && fmt.Sprint(e.Code) != "" {
		parts = append(parts, fmt.Sprint(e.Code))
	}
	s := strings.Join(parts, "/")
	if e.Message != "" {
		if s != "" {
			s += ": "
		}
		s += e.Message
	}
	if s == "" {
		s = "unspecified error"
	}
	return s
}

// openAIStream folds chat completion chunks into a Response.
type openAIStream struct {
	label    string
	out      *collector
	finished bool // a finish_reason arrived
	done     bool // [DONE] arrived
}

// event handles one SSE event; it reports whether the stream is over.
func (s *openAIStream) event(ev Event) (bool, error) {
	data := strings.TrimSpace(ev.Data)
	if data == "[DONE]" {
		s.done = true
		return true, nil
	}
	if data == "" {
		return false, nil
	}
	var c openAIChunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		return false, &StreamError{Provider: s.label, Reason: fmt.Sprintf("malformed JSON in data line: %v (data: %s)", err, excerpt([]byte(data), 120))}
	}
	if c.Error != nil {
		return false, &StreamError{Provider: s.label, Reason: "server reported an error mid-stream: " + c.Error.String()}
	}
	if len(c.Choices) > 0 {
		ch := c.Choices[0]
		if ch.Delta.Content != nil && *ch.Delta.Content != "" {
			s.out.delta(*ch.Delta.Content)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.out.resp.StopReason = *ch.FinishReason
			s.finished = true
		}
	}
	if c.Usage != nil {
		s.out.resp.Usage.InputTokens = c.Usage.PromptTokens
		s.out.resp.Usage.OutputTokens = c.Usage.CompletionTokens
		if c.Usage.PromptTokensDetails != nil {
			s.out.resp.Usage.CacheReadTokens = c.Usage.PromptTokensDetails.CachedTokens
		}
	}
	return false, nil
}

// end is called when the body ends without [DONE]. A stream that already
// delivered its finish_reason is accepted (several compatible servers omit
// [DONE]); anything else was cut short.
func (s *openAIStream) end() error {
	if s.done || s.finished {
		return nil
	}
	return &StreamError{Provider: s.label, Reason: "stream ended before a finish_reason or [DONE] (connection cut short?)"}
}
