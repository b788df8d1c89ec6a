package main

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/piwasm/pi/core/provider"
	"github.com/piwasm/pi/core/settings"
	"golang.org/x/net/http/httpproxy"
)

// Defaults of the established harness for its HTTP clients and retries.
const (
	defaultIdleTimeout = 300 * time.Second
)

// modelClient is the HTTP client pi talks to models with, as the settings
// say:
//
//   - httpProxy (agent dir only) is the proxy for http and https, as if
//     HTTP_PROXY and HTTPS_PROXY named it (NO_PROXY still applies); without
//     it the environment's proxy variables apply;
//   - httpIdleTimeoutMs (default 300000; 0 or "disabled": none) ends an
//     attempt that waits that long for headers or data; retry.provider.
//     timeoutMs, when set, is the wait for the response headers instead;
//   - retry.enabled, retry.maxRetries, retry.baseDelayMs and
//     retry.maxAgentDelayMs: the retries and their waits, baseDelayMs·2ⁿ
//     capped at maxAgentDelayMs, with no jitter, as the established
//     harness waits; retry.provider.maxRetries adds to the count (pi has
//     one retry loop), and retry.provider.maxRetryDelayMs (0: no limit) is
//     the longest wait a server may ask for with Retry-After.
func (a *app) modelClient(v *settings.Settings) (*provider.Client, error) {
	// The clone keeps the dialer resolveSystemNames gave the default
	// transport: names only the system's NSS knows work for models too.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = provider.WrapDial(tr.DialContext)
	if p := v.String("httpProxy"); p != "" {
		if _, err := url.Parse(p); err != nil {
			return nil, fmt.Errorf("settings httpProxy %q: %w", p, err)
		}
		cfg := httpproxy.Config{HTTPProxy: p, HTTPSProxy: p, NoProxy: firstEnv(a.getenv, "NO_PROXY", "no_proxy")}
		pf := cfg.ProxyFunc()
		tr.Proxy = func(r *http.Request) (*url.URL, error) { return pf(r.URL) }
	} else {
		cfg := httpproxy.Config{
			HTTPProxy:  firstEnv(a.getenv, "HTTP_PROXY", "http_proxy"),
			HTTPSProxy: firstEnv(a.getenv, "HTTPS_PROXY", "https_proxy"),
			NoProxy:    firstEnv(a.getenv, "NO_PROXY", "no_proxy"),
		}
		pf := cfg.ProxyFunc()
		tr.Proxy = func(r *http.Request) (*url.URL, error) { return pf(r.URL) }
	}
	c := &provider.Client{Version: version, HTTP: &http.Client{Transport: tr}, Control: &provider.RetryControl{}}
	c.IdleTimeout = defaultIdleTimeout
	if v.IsSet("httpIdleTimeoutMs") {
		if ms, ok := v.Int("httpIdleTimeoutMs"); ok {
			c.IdleTimeout = time.Duration(ms) * time.Millisecond
		} else { // "disabled"
			c.IdleTimeout = 0
		}
	}
	if ms, ok := v.Int("retry.provider.timeoutMs"); ok && v.IsSet("retry.provider.timeoutMs") && ms > 0 {
		tr.ResponseHeaderTimeout = time.Duration(ms) * time.Millisecond
	}
	retries, _ := v.Int("retry.maxRetries")
	provRetries, _ := v.Int("retry.provider.maxRetries")
	base, _ := v.Int("retry.baseDelayMs")
	maxDelay, _ := v.Int("retry.maxAgentDelayMs")
	maxAfter, _ := v.Int("retry.provider.maxRetryDelayMs")
	c.Retry = provider.RetryPolicy{
		MaxAttempts:   int(retries + provRetries),
		BaseDelay:     time.Duration(base) * time.Millisecond,
		MaxDelay:      time.Duration(maxDelay) * time.Millisecond,
		MaxRetryAfter: time.Duration(maxAfter) * time.Millisecond,
		Exact:         true,
	}
	if !v.Bool("retry.enabled") || c.Retry.MaxAttempts == 0 {
		c.Retry.MaxAttempts = -1
	}
	if maxAfter == 0 {
		c.Retry.MaxRetryAfter = -1
	}
	return c, nil
}

func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := getenv(n); v != "" {
			return v
		}
	}
	return ""
}
