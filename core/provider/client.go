package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"runtime"
	"strings"
	"time"
	"unicode/utf8"
)

// Usage counts tokens as the provider reported them; zero when not reported.
// InputTokens excludes the prompt-cache hits and writes, which are counted
// in CacheReadTokens and CacheWriteTokens (OpenAI reports only reads), so the
// four add up to what the request cost on both APIs.
type Usage struct {
	InputTokens      int
	OutputTokens     int
	CacheReadTokens  int
	CacheWriteTokens int
	// ReasoningTokens is the part of OutputTokens spent thinking, when
	// ReasoningReported (the established harness records it only then).
	ReasoningTokens   int
	ReasoningReported bool
	// CacheWrite1hTokens is the part of CacheWriteTokens written for an
	// hour; CacheWrite1hReported says the API counts it apart (Anthropic's
	// does).
	CacheWrite1hTokens   int
	CacheWrite1hReported bool
	// BilledTotal is the whole cost in dollars the provider says it
	// billed, when Billed (OpenRouter reports it); it replaces the total
	// computed from the prices.
	BilledTotal float64
	Billed      bool
	// Reported says the provider reported usage at all (the established
	// harness prices a reply only then, and records that the total was
	// computed, not billed).
	Reported bool
}

// Normalised stop reasons, the same words for every API.
const (
	StopReasonStop    = "stop"    // the model finished its reply
	StopReasonLength  = "length"  // the output-token cap cut the reply
	StopReasonToolUse = "toolUse" // the model wants its tool calls run
	StopReasonError   = "error"   // the stream failed or the provider refused
	StopReasonAborted = "aborted" // the caller's context ended
)

// Response is a streamed reply, assembled.
//
// Text is the concatenation of the text deltas, Thinking that of the
// reasoning deltas (with ThinkingSignature when the provider signed a single
// reasoning block), ToolCalls the calls in the order they started.
// StopReason is normalised (StopReasonStop, ...); RawStopReason is the
// provider's own word ("end_turn", "tool_calls", ...), empty when none
// arrived. ErrorMessage explains a StopReasonError or StopReasonAborted.
type Response struct {
	Text              string
	Thinking          string
	ThinkingSignature string
	ToolCalls         []ToolCall
	StopReason        string
	RawStopReason     string
	ErrorMessage      string
	Usage             Usage
	// ResponseID is the provider's id of the response (empty when it sent
	// none); ResponseModel the model that answered, set only when the
	// provider named one other than the model asked for.
	ResponseID    string
	ResponseModel string
}

// Stream event types, the names the established harness uses for the
// deltas of an assistant message.
const (
	EventTextStart     = "text_start"
	EventTextDelta     = "text_delta"
	EventTextEnd       = "text_end"
	EventThinkingStart = "thinking_start"
	EventThinkingDelta = "thinking_delta"
	EventThinkingEnd   = "thinking_end"
	EventToolCallStart = "toolcall_start"
	EventToolCallDelta = "toolcall_delta"
	EventToolCallEnd   = "toolcall_end"
)

// StreamEvent is one step of a streamed assistant message.
//
// ContentIndex is the index of the block the event belongs to in the
// assistant message's content, text, thinking and tool-call blocks counted
// in the order they started. Delta is the new text of a *_delta event (for
// toolcall_delta a fragment of the arguments' JSON, possibly empty); Content
// the whole text of a text_end or thinking_end; ID and ToolName name the call
// of every toolcall_* event; ToolCall is the finished call of toolcall_end.
// Usage is the usage reported so far.
type StreamEvent struct {
	Type         string
	ContentIndex int
	Delta        string
	ID, ToolName string
	ToolCall     *ToolCall
	Content      string
	Usage        Usage
}

// Client sends requests to a Route and streams the reply.
//
// HTTP is the client used for every request; nil means http.DefaultClient.
// Inject one to set a transport, proxy or overall timeout. Version names pi's
// version in the User-Agent header ("pi/<Version> (os; go; arch)"; "dev"
// when empty); a route header may override it. Retry says how failed
// requests are retried and OnRetry, when non-nil, is told before each wait.
// A Client holds no other state (Control's aside) and is safe for
// concurrent use if HTTP is.
type Client struct {
	HTTP    *http.Client
	Version string
	Retry   RetryPolicy
	OnRetry func(attempt, maxAttempts int, delay time.Duration, err error)
	// IdleTimeout, when positive, ends an attempt that waits that long
	// for the response headers or for the next bytes of the body
	// (settings httpIdleTimeoutMs); the attempt counts as a connection
	// failure, so it is retried.
	IdleTimeout time.Duration
	// Control, when set, turns retries off and on and cuts a retry wait
	// short while the client is in use; nil: retries as Retry says.
	Control *RetryControl
}

// errIdle is the cause of an attempt ended by [Client.IdleTimeout].
var errIdle = errors.New("idle timeout")

// idleBody resets the idle timer at every read of a response body.
type idleBody struct {
	io.ReadCloser
	t *time.Timer
	d time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.t.Reset(b.d)
	return n, err
}

// statusError is returned when the server answers with an HTTP status of 400
// or more.
type statusError struct {
	Provider   string
	StatusCode int
	Status     string // e.g. "401 Unauthorized"
	Body       string // a short excerpt of the response body, on one line
	NoAPIKey   bool   // the route had no API key, which may be the cause
	// RetryAfter is the wait the server asked for (Retry-After or
	// retry-after-ms), zero when it named none.
	RetryAfter time.Duration
	// shouldRetry is the server's x-should-retry verdict: 1 yes, -1 no.
	shouldRetry int
}

func (e *statusError) Error() string {
	msg := fmt.Sprintf("%s: HTTP %s", e.Provider, e.Status)
	if e.Body != "" {
		msg += ": " + e.Body
	}
	if e.NoAPIKey && (e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden) {
		msg += " (no API key is configured for this provider)"
	}
	return msg
}

// streamError is returned when the reply stream is malformed or cut short,
// or when the server reports an error inside the stream.
type streamError struct {
	Provider string
	Reason   string
	// transient marks a failure worth retrying when nothing was delivered
	// yet: the connection dropped, or the server said it was overloaded.
	transient bool
}

func (e *streamError) Error() string { return e.Provider + ": " + e.Reason }

// maxErrorBody is how much of an error response is read, and errorExcerpt
// how much of it is quoted.
const (
	maxErrorBody = 64 << 10
	errorExcerpt = 300
)

// eventSink is one API's stream decoder.
type eventSink interface {
	event(sseEvent) (done bool, err error)
	end() error
}

// Stream sends req on route and calls onDelta (if non-nil) with each piece
// of reply text as it arrives; it is StreamEvents reduced to text deltas.
func (c *Client) Stream(ctx context.Context, route Route, req Request, onDelta func(text string)) (Response, error) {
	var onEvent func(StreamEvent)
	if onDelta != nil {
		onEvent = func(ev StreamEvent) {
			if ev.Type == EventTextDelta {
				onDelta(ev.Delta)
			}
		}
	}
	return c.StreamEvents(ctx, route, req, onEvent)
}

// StreamEvents sends req on route with streaming on, calls onEvent (if
// non-nil) with each StreamEvent as it arrives, and returns the assembled
// reply.
//
// The body is exactly the one DryRun returns. A request that fails in a way
// worth retrying (HTTP 408, 409, 429 or 5xx, a connection that fails or
// drops, an "overloaded" error event) is retried as c.Retry says, but only
// while no event has been delivered: once onEvent has seen part of a reply,
// a failure is returned rather than replayed.
//
// StreamEvents fails, naming the provider, when the route or request is
// invalid, the connection fails, the server answers with status 400 or more
// (*statusError, quoting the start of the body), the stream is malformed or
// ends before its terminal event (*streamError), the provider stops for a
// reason other than the ones a reply may end with (a refusal, a content
// filter: *streamError), or ctx ends (the error wraps ctx.Err(), so
// errors.Is with context.DeadlineExceeded or context.Canceled works). On
// error the Response still holds whatever arrived before it, with
// StopReason "error" (or "aborted" when ctx ended) and ErrorMessage set.
// onEvent runs on the calling goroutine.
func (c *Client) StreamEvents(ctx context.Context, route Route, req Request, onEvent func(StreamEvent)) (Response, error) {
	body, err := buildBody(route, req)
	if err != nil {
		return Response{StopReason: StopReasonError, ErrorMessage: err.Error()}, err
	}
	if req.Patch != nil {
		if body, err = patchBody(ctx, body, req.Patch); err != nil {
			return Response{StopReason: StopReasonError, ErrorMessage: err.Error()}, err
		}
	}
	target, err := route.Endpoint()
	if err != nil {
		return Response{StopReason: StopReasonError, ErrorMessage: err.Error()}, err
	}
	policy := c.Retry.withDefaults()
	for attempt := 0; ; attempt++ {
		out := newAssembler(onEvent)
		out.asked = route.ModelID
		out.openRouter = route.Provider == "openrouter" || strings.Contains(route.BaseURL, "openrouter.ai")
		err := c.once(ctx, route, target, body, out, req.SessionID)
		resp := out.result()
		if err == nil {
			if out.refusal != "" {
				err = &streamError{Provider: route.label(), Reason: out.refusal}
				resp.StopReason, resp.ErrorMessage = StopReasonError, err.Error()
			}
			return resp, err
		}
		resp.StopReason, resp.ErrorMessage = StopReasonError, err.Error()
		if ctx.Err() != nil {
			resp.StopReason = StopReasonAborted
			return resp, err
		}
		if req.NoRetry || out.delivered || attempt >= policy.MaxAttempts || !retryable(err) || (c.Control != nil && !c.Control.Enabled()) {
			return resp, err
		}
		delay, derr := policy.delay(attempt, err)
		if derr != nil {
			resp.ErrorMessage = derr.Error()
			return resp, derr
		}
		// The wait can be cut short from the moment it is announced.
		wctx, done := ctx, func() {}
		if c.Control != nil {
			wctx, done = c.Control.waiting(ctx)
		}
		if c.OnRetry != nil {
			c.OnRetry(attempt+1, policy.MaxAttempts, delay, err)
		}
		serr := policy.Sleep(wctx, delay)
		done()
		if serr != nil && ctx.Err() == nil {
			// abort_retry: the request fails with what made it retry.
			err = fmt.Errorf("%w (retrying was stopped)", err)
			resp.ErrorMessage = err.Error()
			return resp, err
		}
		if serr != nil {
			err = ctxError(ctx, route.label(), "waiting to retry", serr)
			resp.StopReason, resp.ErrorMessage = StopReasonAborted, err.Error()
			return resp, err
		}
	}
}

// once makes one HTTP attempt and feeds its stream to out.
func (c *Client) once(outer context.Context, route Route, target string, body *object, out *assembler, sessionID string) (err error) {
	label := route.label()
	ctx, cancel := context.WithCancelCause(outer)
	defer cancel(nil)
	var idle *time.Timer
	if c.IdleTimeout > 0 {
		idle = time.AfterFunc(c.IdleTimeout, func() { cancel(errIdle) })
		defer idle.Stop()
		defer func() {
			if err != nil && outer.Err() == nil && errors.Is(context.Cause(ctx), errIdle) {
				err = &transportError{fmt.Errorf("%s: no data from the server for %s (httpIdleTimeoutMs)", label, c.IdleTimeout)}
			}
		}()
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, target, body.readCloser())
	if err != nil {
		return fmt.Errorf("%s: building request: %w", label, err)
	}
	hreq.ContentLength = int64(body.size())
	hreq.GetBody = func() (io.ReadCloser, error) { return body.readCloser(), nil }
	hreq.Header = route.header()
	route.affinity(hreq.Header, sessionID)
	if !headerSetFold(route.Headers, "User-Agent") {
		hreq.Header.Set("User-Agent", userAgent(c.Version))
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	hresp, err := hc.Do(hreq)
	if err != nil {
		return &transportError{ctxError(ctx, label, "sending request", err)}
	}
	defer hresp.Body.Close()
	if idle != nil {
		idle.Reset(c.IdleTimeout)
		hresp.Body = &idleBody{ReadCloser: hresp.Body, t: idle, d: c.IdleTimeout}
	}

	if hresp.StatusCode >= 400 {
		raw, rerr := io.ReadAll(io.LimitReader(hresp.Body, maxErrorBody))
		if rerr != nil && ctx.Err() != nil {
			return ctxError(ctx, label, "reading error response", rerr)
		}
		return &statusError{
			Provider:    label,
			StatusCode:  hresp.StatusCode,
			Status:      statusText(hresp),
			Body:        excerpt(raw, errorExcerpt),
			NoAPIKey:    route.APIKey == "",
			RetryAfter:  retryAfter(hresp.Header, time.Now()),
			shouldRetry: shouldRetry(hresp.Header),
		}
	}

	var sink eventSink
	switch route.API {
	case APIAnthropicMessages:
		sink = &anthropicStream{label: label, out: out}
	case APIOpenAIResponses, APIAzureOpenAIResponses:
		sink = newResponsesStream(label, route.API, out)
	case APIGoogleGenerativeAI:
		sink = newGoogleStream(label, out)
	default:
		sink = newOpenAIStream(label, out)
	}
	sse := newSSEReader(hresp.Body)
	for {
		ev, err := sse.next()
		if _, raw := sink.(*openAIStream); !raw {
			// The other shapes decode from the string (chat completions
			// decodes the bytes, which stay valid until the next event).
			ev.Data, ev.raw = string(ev.raw), nil
		}
		if err == io.EOF {
			if err := sink.end(); err != nil {
				return withContentType(err, hresp)
			}
			return nil
		}
		if err != nil {
			if ctx.Err() == nil && errors.Is(err, io.ErrUnexpectedEOF) {
				return &streamError{Provider: label, Reason: "connection closed in the middle of the stream (unexpected EOF)", transient: true}
			}
			if ctx.Err() == nil {
				return &transportError{fmt.Errorf("%s: reading stream: %w", label, err)}
			}
			return ctxError(ctx, label, "reading stream", err)
		}
		done, err := sink.event(ev)
		if err != nil {
			return err
		}
		if done {
			drainRest(hresp.Body, cancel)
			return nil
		}
	}
}

// After the stream's last event ([DONE], message_stop) the server still
// ends the body: over HTTP/1.1 the chunked body's last, empty chunk, sent
// right after. net/http puts a connection back in the pool only when its
// response body was read to the end; a body closed before that costs the
// connection, and the next turn dials a new one (a TCP handshake on
// loopback, a TLS one to a remote server). So the rest is read, as the
// established harness's SDKs read a stream to its end, within bounds: a
// server that sends more, or holds the body open, loses the connection as
// before rather than holding up the turn.
const (
	drainMax  = 64 << 10
	drainWait = 100 * time.Millisecond
)

// errDrain is the cause of an attempt whose body did not end soon after its
// last event.
var errDrain = errors.New("body not ended after the stream's last event")

func drainRest(body io.Reader, cancel context.CancelCauseFunc) {
	t := time.AfterFunc(drainWait, func() { cancel(errDrain) })
	io.Copy(io.Discard, io.LimitReader(body, drainMax))
	t.Stop()
}

// headerSetFold reports whether h has name in any letter case.
func headerSetFold(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// userAgent is the User-Agent header pi sends: "pi/<version> (<os>; <go
// version>; <arch>)", with "dev" for an empty version.
func userAgent(version string) string {
	if version == "" {
		version = "dev"
	}
	return fmt.Sprintf("pi/%s (%s; %s; %s)", version, runtime.GOOS, runtime.Version(), runtime.GOARCH)
}

// transportError marks a failure of the connection itself.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

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
	var se *streamError
	if !errors.As(err, &se) {
		return err
	}
	ct := hresp.Header.Get("Content-Type")
	mt, _, _ := mime.ParseMediaType(ct)
	if ct != "" && mt != "text/event-stream" {
		return &streamError{Provider: se.Provider, Reason: fmt.Sprintf("%s; the response was %q, not text/event-stream", se.Reason, ct)}
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

// patchBody serialises body for patch and takes back what it returns (a
// body built whole, sent as it is).
func patchBody(ctx context.Context, body *object, patch func(context.Context, []byte) ([]byte, error)) (*object, error) {
	b, err := io.ReadAll(body.reader())
	if err != nil {
		return nil, err
	}
	out, err := patch(ctx, b)
	if err != nil || out == nil {
		return body, err
	}
	return &object{raw: out}, nil
}
