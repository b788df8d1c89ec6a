package provider

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Usage counts tokens as the provider reported them; zero when not reported.
// CacheReadTokens and CacheWriteTokens are the prompt-cache hits and writes
// (OpenAI reports only reads).
type Usage struct {
	InputTokens      int
	OutputTokens     int
	CacheReadTokens  int
	CacheWriteTokens int
}

// Response is a streamed reply, assembled.
//
// Text is the concatenation of the text deltas. StopReason is the
// provider's own word for why generation ended ("stop", "length" for OpenAI;
// "end_turn", "max_tokens", ... for Anthropic), unchanged.
type Response struct {
	Text       string
	StopReason string
	Usage      Usage
}

// Client sends requests to a Route and streams the reply.
//
// HTTP is the client used for every request; nil means http.DefaultClient.
// Inject one to set a transport, proxy or overall timeout. A Client holds no
// other state and is safe for concurrent use if HTTP is.
type Client struct {
	HTTP *http.Client
}

// StatusError is returned when the server answers with an HTTP status of 400
// or more.
type StatusError struct {
	Provider   string
	StatusCode int
	Status     string // e.g. "401 Unauthorized"
	Body       string // a short excerpt of the response body, on one line
	NoAPIKey   bool   // the route had no API key, which may be the cause
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s: HTTP %s", e.Provider, e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	if e.NoAPIKey && (e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden) {
		msg += " (no API key is configured for this provider)"
	}
	return msg
}

// StreamError is returned when the reply stream is malformed or cut short,
// or when the server reports an error inside the stream.
type StreamError struct {
	Provider string
	Reason   string
}

func (e *StreamError) Error() string { return e.Provider + ": " + e.Reason }

// maxErrorBody is how much of an error response is read, and errorExcerpt
// how much of it is quoted.
const (
	maxErrorBody = 64 << 10
	errorExcerpt = 300
)

// collector accumulates deltas into a Response.
type collector struct {
	resp    Response
	text    strings.Builder
	onDelta func(string)
}

func (c *collector) delta(s string) {
	c.text.WriteString(s)
	if c.onDelta != nil {
		c.onDelta(s)
	}
}

func (c *collector) result() Response {
	c.resp.Text = c.text.String()
	return c.resp
}

// eventSink is one API's stream decoder.
type eventSink interface {
	event(Event) (done bool, err error)
	end() error
}

// Stream sends req on route with streaming on, calls onDelta (if non-nil)
// with each piece of text as it arrives, and returns the assembled reply.
//
// The body is exactly the one DryRun returns. Stream fails, naming the
// provider, when the route or request is invalid, the connection fails, the
// server answers with status 400 or more (*StatusError, quoting the start of
// the body), the stream is malformed or ends before its terminal event
// (*StreamError), or ctx ends (the error wraps ctx.Err(), so errors.Is with
// context.DeadlineExceeded or context.Canceled works). On error the Response
// still holds whatever text arrived before it. onDelta runs on the calling
// goroutine.
func (c *Client) Stream(ctx context.Context, route Route, req Request, onDelta func(text string)) (Response, error) {
	label := route.label()
	body, err := DryRun(route, req)
	if err != nil {
		return Response{}, err
	}
	target, err := route.Endpoint()
	if err != nil {
		return Response{}, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return Response{}, fmt.Errorf("%s: building request: %w", label, err)
	}
	hreq.Header = route.header()
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	hresp, err := hc.Do(hreq)
	if err != nil {
		return Response{}, ctxError(ctx, label, "sending request", err)
	}
	defer hresp.Body.Close()

	if hresp.StatusCode >= 400 {
		raw, rerr := io.ReadAll(io.LimitReader(hresp.Body, maxErrorBody))
		if rerr != nil && ctx.Err() != nil {
			return Response{}, ctxError(ctx, label, "reading error response", rerr)
		}
		return Response{}, &StatusError{
			Provider:   label,
			StatusCode: hresp.StatusCode,
			Status:     statusText(hresp),
			Body:       excerpt(raw, errorExcerpt),
			NoAPIKey:   route.APIKey == "",
		}
	}

	out := &collector{onDelta: onDelta}
	var sink eventSink
	if route.API == APIAnthropicMessages {
		sink = &anthropicStream{label: label, out: out}
	} else {
		sink = &openAIStream{label: label, out: out}
	}
	sse := NewSSEReader(hresp.Body)
	for {
		ev, err := sse.Next()
		if err == io.EOF {
			if err := sink.end(); err != nil {
				return out.result(), withContentType(err, hresp)
			}
			return out.result(), nil
		}
		if err != nil {
			if ctx.Err() == nil && errors.Is(err, io.ErrUnexpectedEOF) {
				return out.result(), &StreamError{Provider: label, Reason: "connection closed in the middle of the stream (unexpected EOF)"}
			}
			return out.result(), ctxError(ctx, label, "reading stream", err)
		}
		done, err := sink.event(ev)
		if err != nil {
			return out.result(), err
		}
		if done {
			return out.result(), nil
		}
	}
}

// ctxError explains err, preferring the context's reason when it ended.
func ctxError(ctx context.Context, label, doing string, err error) error {
	switch cerr := ctx.Err(); {
	case errors.Is(cerr, context.DeadlineExceeded):
		return fmt.Errorf("%s: timed out while %s: %w", label, doing, cerr)
	case cerr != nil:
		return fmt.Errorf("%s: canceled while %s: %w", label, doing, cerr)
	}
	return fmt.Errorf("%s: %s: %w", label, doing, err)
}

// withContentType adds a hint to a stream error when the server did not
// send an event stream at all (a proxy's HTML page, a non-streamed JSON).
func withContentType(err error, hresp *http.Response) error {
	var se *StreamError
	if !errors.As(err, &se) {
		return err
	}
	ct := hresp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if ct != "" && mt != "text/event-stream" {
		return &StreamError{Provider: se.Provider, Reason: fmt.Sprintf("%s; the response was %q, not text/event-stream", se.Reason, ct)}
	}
	return err
}

func statusText(r *http.Response) string {
	if r.Status != "" {
		return r.Status
	}
	return fmt.Sprintf("%d %s", r.StatusCode, http.StatusText(r.StatusCode))
}

// excerpt returns at most n bytes of b as valid UTF-8 on one line, with
// runs of white space collapsed and "…" appended when cut.
func excerpt(b []byte, n int) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
