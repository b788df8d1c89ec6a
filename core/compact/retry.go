package compact

import (
	"context"
	"time"

	"github.com/piwasm/pi/core/settings"
	"github.com/piwasm/pi/internal/lazyre"
)

// Retry is how a failed summary request (compaction, turn prefix, branch
// summary) is tried again, as the established harness does it with the
// agent's retry.* settings: when Enabled, up to MaxRetries more times,
// the n-th retry (from 1) after BaseDelay·2ⁿ⁻¹, at most MaxDelay, and
// only for an error that reads as transient (Retryable). An answer that
// was cut off or called a tool is not retried: asking again would not
// change it.
type Retry struct {
	Enabled    bool
	MaxRetries int
	BaseDelay  time.Duration
	MaxDelay   time.Duration
	// Sleep waits d or until ctx ends (returning ctx's error); nil means
	// a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// RetryDefaults are the established harness's retry.* defaults.
var RetryDefaults = Retry{Enabled: true, MaxRetries: 3, BaseDelay: 2 * time.Second, MaxDelay: 60 * time.Second}

// RetryFromValues reads retry.enabled, retry.maxRetries, retry.baseDelayMs
// and retry.maxAgentDelayMs (values may be nil: the defaults).
func RetryFromValues(values *settings.Settings) Retry {
	r := RetryDefaults
	if values == nil {
		return r
	}
	r.Enabled = values.Bool("retry.enabled")
	if n, ok := values.Int("retry.maxRetries"); ok && n >= 0 {
		r.MaxRetries = int(n)
	}
	if n, ok := values.Int("retry.baseDelayMs"); ok && n >= 0 {
		r.BaseDelay = time.Duration(n) * time.Millisecond
	}
	if n, ok := values.Int("retry.maxAgentDelayMs"); ok && n >= 0 {
		r.MaxDelay = time.Duration(n) * time.Millisecond
	}
	return r
}

// delay is the wait before retry attempt (from 1).
func (r Retry) delay(attempt int) time.Duration {
	d := r.BaseDelay
	for i := 1; i < attempt && d < r.MaxDelay; i++ {
		d *= 2
	}
	return min(d, r.MaxDelay)
}

func (r Retry) sleep(ctx context.Context, d time.Duration) error {
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// RetryNotices are told of a summary request's retries, in the order of
// the established harness's summarization_retry_* events: Scheduled
// before each wait, AttemptStart when the wait is over and the request is
// sent again, Finished once when the retrying ends (in success, failure
// or abort). Any of them may be nil.
type RetryNotices struct {
	Scheduled    func(attempt, maxAttempts int, delay time.Duration, errorMessage string)
	AttemptStart func()
	Finished     func()
}

// The established harness's classification of provider errors: quota and
// billing exhaustion is final; load, rate limits, 5xx statuses, dropped
// connections and streams cut short are worth another try. RE2 has no
// look-behind, so "not inside a longer word or number" is written as a
// boundary of its own.
var (
	notRetryable = lazyre.New(`(?i)GoUsageLimitError|FreeUsageLimitError|Monthly usage limit reached|available balance|insufficient_quota|out of budget|quota exceeded|billing|subscription_sharing_usage_limit_exceeded|subscription_sharing_workplace_individual_usage_limit_exceeded|"code"\s*:\s*"?1308(?:[^0-9]|$)`)
	retryable    = lazyre.New(`(?i)overloaded|server_busy|servers are currently busy|currently experiencing high demand|model is at capacity|rate.?limit|too many requests|(?:^|[^a-z0-9])(?:429|500|502|503|504|520|524)(?:[^a-z0-9]|$)|service.?(?:is.?)?(?:temporarily.?)?unavailable|server.?error|internal.?error|provider.?returned.?(?:an.?)?error|exceeded request buffer limit while retrying upstream|unable to forward upstream|upstream.?request.?failed|upstream_stream_read_error|stream was interrupted|http/?2 stream failed|network.?error|connection.?error|connection.?refused|connection.?lost|connection.?closed|other side closed|fetch failed|request to \S+ failed, reason:|getaddrinfo|(?:^|[^a-z0-9_])(?:ECONNRESET|ECONNABORTED|ECONNREFUSED|ETIMEDOUT|EPIPE)(?:[^a-z0-9_]|$)|connection reset by peer|ENOTFOUND|EAI_AGAIN|upstream.?connect|reset before headers|socket hang up|socket connection was closed|timed? out|timeout|terminated|websocket.?closed|websocket.?error|websocket.?connection.?limit.?reached|ended without|stream ended before message_stop|stream ended before a terminal response event|http2 request did not get a response|stream disconnected before completion|cut short after the reply had begun|pending stream has been canceled|retry delay|you can retry your request|try your request again|please retry your request|ResourceExhausted|subscription_sharing_usage_unavailable|subscription_sharing_user_unavailable|unexpected EOF|no data from the server`)
)

// Retryable reports whether a failed request's error message reads as
// transient. Besides the established harness's wordings it knows two of
// pi's own transport errors ("unexpected EOF" of a stream cut short, the
// idle timeout's "no data from the server").
func Retryable(msg string) bool {
	return msg != "" && !notRetryable().MatchString(msg) && retryable().MatchString(msg)
}
