package compact

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/piwasm/pi/core/provider"
)

// TestSummaryRetry: a summary request that fails with a transient error
// is sent again after baseDelay·2ⁿ⁻¹ (capped), with the notices in the
// established harness's order; a final error, a disabled policy or an
// exhausted budget fails at once; every request goes out with the
// client's own retries off.
func TestSummaryRetry(t *testing.T) {
	cases := []struct {
		name    string
		retry   Retry
		fails   []string // error messages of the first requests
		wantErr bool
		want    string // notices
	}{
		{"once", Retry{Enabled: true, MaxRetries: 3, BaseDelay: time.Second, MaxDelay: time.Minute},
			[]string{"openai: HTTP 503 Service Unavailable"}, false,
			"scheduled 1/3 1000ms openai: HTTP 503 Service Unavailable; start; finished"},
		{"twice, capped", Retry{Enabled: true, MaxRetries: 3, BaseDelay: time.Second, MaxDelay: 1500 * time.Millisecond},
			[]string{"terminated", "socket hang up"}, false,
			"scheduled 1/3 1000ms terminated; start; scheduled 2/3 1500ms socket hang up; start; finished"},
		{"exhausted", Retry{Enabled: true, MaxRetries: 1, BaseDelay: time.Second, MaxDelay: time.Minute},
			[]string{"overloaded", "overloaded"}, true,
			"scheduled 1/1 1000ms overloaded; start; finished"},
		{"final error", Retry{Enabled: true, MaxRetries: 3, BaseDelay: time.Second, MaxDelay: time.Minute},
			[]string{"HTTP 401 Unauthorized"}, true, ""},
		{"quota", Retry{Enabled: true, MaxRetries: 3, BaseDelay: time.Second, MaxDelay: time.Minute},
			[]string{"429 insufficient_quota"}, true, ""},
		{"disabled", Retry{MaxRetries: 3, BaseDelay: time.Second},
			[]string{"overloaded"}, true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var log []string
			n := 0
			c.retry.Sleep = func(context.Context, time.Duration) error { return nil }
			m := Model{
				Retry: c.retry,
				Complete: func(_ context.Context, req provider.Request) (provider.Response, error) {
					if !req.NoRetry {
						t.Error("a summary request left the client's retries on")
					}
					n++
					if n <= len(c.fails) {
						msg := c.fails[n-1]
						return provider.Response{StopReason: "error", ErrorMessage: msg}, errors.New(msg)
					}
					return provider.Response{Text: "## Goal\nOK", StopReason: "stop"}, nil
				},
				Notices: RetryNotices{
					Scheduled: func(a, max int, d time.Duration, msg string) {
						log = append(log, fmt.Sprintf("scheduled %d/%d %dms %s", a, max, d.Milliseconds(), msg))
					},
					AttemptStart: func() { log = append(log, "start") },
					Finished:     func() { log = append(log, "finished") },
				},
			}
			text, _, err := m.ask(context.Background(), "x", "Summarization")
			if (err != nil) != c.wantErr || (err == nil && text != "## Goal\nOK") {
				t.Fatalf("ask: %q, %v", text, err)
			}
			if got := strings.Join(log, "; "); got != c.want {
				t.Fatalf("notices:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestSummaryRetryAbort: cancelling during the wait stops the retrying
// with Finished and an error that says so.
func TestSummaryRetryAbort(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	finished := 0
	m := Model{
		Retry: Retry{Enabled: true, MaxRetries: 3, BaseDelay: time.Hour, MaxDelay: time.Hour, Sleep: func(ctx context.Context, _ time.Duration) error {
			cancel()
			<-ctx.Done()
			return ctx.Err()
		}},
		Complete: func(context.Context, provider.Request) (provider.Response, error) {
			return provider.Response{StopReason: "error", ErrorMessage: "overloaded"}, errors.New("overloaded")
		},
		Notices: RetryNotices{Finished: func() { finished++ }},
	}
	if _, _, err := m.ask(ctx, "x", "Summarization"); err == nil || !strings.Contains(err.Error(), "waiting to retry") || finished != 1 {
		t.Fatalf("err %v, finished %d", err, finished)
	}
}

func TestRetryable(t *testing.T) {
	for msg, want := range map[string]bool{
		"openai: HTTP 503 Service Unavailable: {}":      true,
		"anthropic: HTTP 529: overloaded_error":         true,
		"read tcp: connection reset by peer":            true,
		"terminated":                                    true,
		"request id 15030":                              false,
		"openai: HTTP 400 Bad Request: invalid request": false,
		"quota exceeded (429)":                          false,
		`{"code":"1308","message":"limit"} 429`:         false,
		"":                                              false,
	} {
		if got := Retryable(msg); got != want {
			t.Errorf("Retryable(%q) = %v, want %v", msg, got, want)
		}
	}
}
