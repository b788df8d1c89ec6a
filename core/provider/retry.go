package provider

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Retry defaults, as the established harness's SDKs use them.
const (
	defaultRetries       = 3
	defaultRetryBase     = 500 * time.Millisecond
	defaultRetryMax      = 8 * time.Second
	defaultMaxRetryAfter = 60 * time.Second
)

// RetryPolicy says how a failed request is retried.
//
// MaxAttempts is the number of retries after the first try: 0 means
// defaultRetries, a negative value turns retries off. The n-th retry (from
// 0) waits BaseDelay·2ⁿ, at most MaxDelay, less up to a quarter of random
// jitter (none with Exact, as the established harness waits), unless the
// server named a wait (Retry-After, retry-after-ms), which is honoured as
// is; a named wait longer than MaxRetryAfter (negative: no limit) fails the
// request at once instead. Zero durations take the defaults. Sleep waits d
// or until ctx ends (returning ctx's error); nil means a timer — tests
// inject one that returns at once.
type RetryPolicy struct {
	MaxAttempts   int
	BaseDelay     time.Duration
	MaxDelay      time.Duration
	MaxRetryAfter time.Duration
	Exact         bool
	Sleep         func(ctx context.Context, d time.Duration) error
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	switch {
	case p.MaxAttempts == 0:
		p.MaxAttempts = defaultRetries
	case p.MaxAttempts < 0:
		p.MaxAttempts = 0
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = defaultRetryBase
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = defaultRetryMax
	}
	if p.MaxRetryAfter == 0 {
		p.MaxRetryAfter = defaultMaxRetryAfter
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
	return p
}

// delay is the wait before retry number attempt (from 0) after err.
func (p RetryPolicy) delay(attempt int, err error) (time.Duration, error) {
	var se *statusError
	if errors.As(err, &se) && se.RetryAfter > 0 {
		if p.MaxRetryAfter > 0 && se.RetryAfter > p.MaxRetryAfter {
			return 0, fmt.Errorf("%w (the server asked to retry in %s, longer than the %s pi waits)", err, se.RetryAfter.Round(time.Second), p.MaxRetryAfter)
		}
		return se.RetryAfter, nil
	}
	d := p.BaseDelay
	for range attempt {
		d *= 2
		if d >= p.MaxDelay {
			break
		}
	}
	d = min(d, p.MaxDelay)
	if p.Exact {
		return d, nil
	}
	return d - time.Duration(rand.Float64()*0.25*float64(d)), nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryable reports whether err is worth another try.
func retryable(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		switch se.shouldRetry {
		case 1:
			return true
		case -1:
			return false
		}
		c := se.StatusCode
		return c == http.StatusRequestTimeout || c == http.StatusConflict || c == http.StatusTooManyRequests || c >= 500
	}
	var te *transportError
	if errors.As(err, &te) {
		return true
	}
	var ste *streamError
	return errors.As(err, &ste) && ste.transient
}

// retryAfter reads the wait a server asked for: retry-after-ms, or
// Retry-After in seconds or as an HTTP date. Zero when absent or unusable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 && ms < 1e12 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 && s < 1e9 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// shouldRetry reads the x-should-retry header: 1 yes, -1 no, 0 unsaid.
func shouldRetry(h http.Header) int {
	switch h.Get("X-Should-Retry") {
	case "true":
		return 1
	case "false":
		return -1
	}
	return 0
}
